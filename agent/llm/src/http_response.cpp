// HttpResponse's accessors, apart from the transport in http_client.cpp: the
// provider adapters read headers of answers (retry-after, request ids) and
// link without Beast or OpenSSL (the stream decoder fuzz target does).
#include "kgb/llm/http_client.h"

namespace kgb::llm {

std::string_view HttpResponse::header(std::string_view lower_case_name) const {
  for (const HttpHeader& h : headers)
    if (h.name == lower_case_name) return h.value;
  return {};
}

}  // namespace kgb::llm
