// Test PKI: a throw-away CA and a server certificate it signs, made with the
// OpenSSL API so the tests need no openssl binary and no fixtures on disk.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>

#include "scripted_server.h"

namespace kgb::test {
namespace {

struct KeyFree { void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); } };
struct CertFree { void operator()(X509* c) const { X509_free(c); } };
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

Key make_key() {
  Key key(EVP_EC_gen("P-256"));
  if (!key) throw std::runtime_error("EC key generation failed");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) throw std::runtime_error("bad certificate extension " + value);
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
}

Cert make_cert(EVP_PKEY* key, const std::string& common_name, X509* issuer, EVP_PKEY* issuer_key, long serial) {
  Cert cert(X509_new());
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86400);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name);
  return cert;
}

void sign(X509* cert, EVP_PKEY* key) {
  if (!X509_sign(cert, key, EVP_sha256())) throw std::runtime_error("certificate signing failed");
}

void write_file(const std::string& path, const std::function<int(FILE*)>& writer) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  const int ok = writer(f);
  std::fclose(f);
  if (!ok) throw std::runtime_error("PEM write failed for " + path);
}

}  // namespace

TestPki make_test_pki(const std::string& directory, const std::vector<std::string>& dns_names,
                      const std::vector<std::string>& ip_addresses) {
  Key ca_key = make_key();
  Cert ca = make_cert(ca_key.get(), "kgb test CA", nullptr, nullptr, 1);
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  sign(ca.get(), ca_key.get());

  Key leaf_key = make_key();
  Cert leaf = make_cert(leaf_key.get(), dns_names.empty() ? "server" : dns_names.front(), ca.get(), ca_key.get(), 2);
  std::string san;
  for (const auto& dns : dns_names) san += (san.empty() ? "" : ",") + std::string("DNS:") + dns;
  for (const auto& ip : ip_addresses) san += (san.empty() ? "" : ",") + std::string("IP:") + ip;
  add_extension(leaf.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(leaf.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  // Every test CA has the same name; the key identifier tells a verifier
  // trusting several of them which one signed this leaf.
  add_extension(leaf.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
  if (!san.empty()) add_extension(leaf.get(), ca.get(), NID_subject_alt_name, san);
  sign(leaf.get(), ca_key.get());

  TestPki pki;
  pki.ca_file = directory + "/ca.pem";
  pki.server.certificate_chain = directory + "/server.pem";
  pki.server.private_key = directory + "/server.key";
  write_file(pki.ca_file, [&](FILE* f) { return PEM_write_X509(f, ca.get()); });
  write_file(pki.server.certificate_chain, [&](FILE* f) { return PEM_write_X509(f, leaf.get()); });
  write_file(pki.server.private_key,
             [&](FILE* f) { return PEM_write_PrivateKey(f, leaf_key.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  return pki;
}

}  // namespace kgb::test
