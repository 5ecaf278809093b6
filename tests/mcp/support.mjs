// Shared by the MCP tests: where kgb and the SDK are, kernels for blas/saxpy,
// an HTTP server started as a real process, and the run store read back
// through `kgb export`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const kgb = process.env.KGB_CLI ?? path.join(root, 'build/agent/cli/kgb');

// The official SDK, installed by scripts/setup.sh into examples/mcp (npm ci).
const sdkRoot = path.join(root, 'examples/mcp/node_modules/@modelcontextprotocol/sdk');
if (!existsSync(path.join(sdkRoot, 'package.json'))) {
  process.stderr.write(`the MCP SDK is not installed at ${sdkRoot}: run scripts/setup.sh (npm ci --prefix examples/mcp)\n`);
  process.exit(1);
}
export const sdkVersion = JSON.parse(readFileSync(path.join(sdkRoot, 'package.json'), 'utf8')).version;
const load = (sub) => import(pathToFileURL(path.join(sdkRoot, 'dist/esm', sub)).href);
export const { Client } = await load('client/index.js');
export const { StdioClientTransport } = await load('client/stdio.js');
export const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
export const { McpError } = await load('types.js');

export const tempDir = (name) => mkdtempSync(path.join(tmpdir(), `kgb-mcp-${name}-`));

// Kernels for blas/saxpy on cpu-x86_64.
export const saxpy = {
  correct: readFileSync(path.join(root, 'benchmark/tasks/blas/saxpy/solutions/cpu.cpp'), 'utf8'),
  wrong: `#include "kgb_kernel.h"
extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  for (int64_t i = 0; i < x->sizes[0]; ++i)
    yp[i * y->strides[0]] = static_cast<float>(alpha) * xp[i * x->strides[0]] - yp[i * y->strides[0]];
  return KGB_OK;
}
`,
  compileError: `#include "kgb_kernel.h"
extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  return no_such_function(alpha, x, y, stream);
}
`,
  // Correct, but every call spins a while first: an evaluation that is surely
  // still running a second after it started, and whose runner, orphaned by a
  // killed server, still ends at its next call.
  slow: `#include "kgb_kernel.h"
extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  for (volatile long i = 0; i < 200000000; i = i + 1) {
  }
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  for (int64_t i = 0; i < x->sizes[0]; ++i)
    yp[i * y->strides[0]] += static_cast<float>(alpha) * xp[i * x->strides[0]];
  return KGB_OK;
}
`,
  lintRejected: `#include <stdlib.h>
#include "kgb_kernel.h"
extern "C" int kgb_blas_saxpy(double alpha, const kgb_tensor* x, kgb_tensor* y, kgb_stream stream) {
  (void)stream;
  if (getenv("KGB_SHORTCUT")) return KGB_OK;
  const float* xp = static_cast<const float*>(x->data);
  float* yp = static_cast<float*>(y->data);
  for (int64_t i = 0; i < x->sizes[0]; ++i)
    yp[i * y->strides[0]] += static_cast<float>(alpha) * xp[i * x->strides[0]];
  return KGB_OK;
}
`,
};

// Flags that keep evaluations short in tests.
export const fastEval = ['--seeds', '1', '--time-budget', '0.05', '--timing-pairs', '1'];

export function run(args, options = {}) {
  const r = spawnSync(kgb, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (r.error) throw r.error;
  return r;
}

// Rows of one table of a run, through `kgb export`.
export function exportTable(store, runId, table) {
  const r = run(['export', runId, '--store', store, '--format', 'jsonl', '--table', table]);
  if (r.status !== 0) throw new Error(`kgb export ${table}: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

// `kgb mcp-server --http` as a process; resolves once it listens.
export async function startHttpServer(args, env = {}) {
  const dir = tempDir('http');
  const info = path.join(dir, 'server.json');
  const proc = spawn(kgb, ['mcp-server', '--http', '--port', '0', '--info-file', info, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stdout.on('data', (d) => { log += d; });
  proc.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  for (let i = 0; i < 600 && !existsSync(info); ++i) {
    if (proc.exitCode !== null) throw new Error(`kgb mcp-server exited (${proc.exitCode}): ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (!existsSync(info)) throw new Error(`kgb mcp-server did not start: ${log}`);
  const server = JSON.parse(readFileSync(info, 'utf8'));
  return {
    ...server,
    proc,
    exited,
    log: () => log,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

// `kgb mcp-server` over stdio without an SDK: raw lines in, parsed answers out.
export function rawStdioServer(args) {
  const proc = spawn(kgb, ['mcp-server', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = [];
  let buffer = '';
  proc.stdout.on('data', (d) => {
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  return {
    proc,
    lines,
    exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
    sendLine: (text) => proc.stdin.write(`${text}\n`),
    // For finally blocks: a failed test must not leave a server behind.
    kill: () => { if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL'); },
    send: (message) => proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
    // The answer with this id, once it arrives.
    async answer(id) {
      for (let i = 0; i < 600; ++i) {
        const found = lines.find((l) => l.id === id);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no answer to ${id}: ${JSON.stringify(lines)}`);
    },
    // At least `n` answers, in the order they came.
    async count(n) {
      for (let i = 0; i < 200 && lines.length < n; ++i) await new Promise((r) => setTimeout(r, 50));
      if (lines.length < n) throw new Error(`expected ${n} answers, got ${JSON.stringify(lines)}`);
    },
  };
}

// An SDK client of `kgb mcp-server ARGS` over stdio; log() is the server's stderr.
export async function stdioClient(args, name = 'kgb-mcp-test', version = '1.0.0') {
  const transport = new StdioClientTransport({ command: kgb, args: ['mcp-server', ...args], stderr: 'pipe' });
  let log = '';
  transport.stderr?.on('data', (d) => { log += d; });
  const client = new Client({ name, version });
  await client.connect(transport);
  return { client, log: () => log };
}

// An SDK client over HTTP; `headers` go with every request.
export async function httpClient(url, headers = {}, name = 'kgb-mcp-test') {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

export const text = (result) => result.content.map((c) => c.text).join('\n');
