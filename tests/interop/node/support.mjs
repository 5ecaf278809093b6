// Shared helpers of the interop tests: start `kgb oracle-server`, mock-llm and
// claude-code-router as child processes on free loopback ports, run `kgb`
// commands, and stop everything when the test file ends (even on failure).
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const repoRoot = path.resolve(here, '../../..');

// The kgb executable under test (set by ctest).
export function kgbBinary() {
  const kgb = process.env.KGB_BINARY;
  if (!kgb || !existsSync(kgb)) throw new Error(`KGB_BINARY is not an executable (${kgb}): run these tests through ctest`);
  return kgb;
}

const children = new Set();
function stopAll() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => { stopAll(); process.exit(130); });

export function tempDir(name) { return mkdtempSync(path.join(tmpdir(), `kgb-interop-${name}-`)); }

export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// A child process that counts as ready when a line of its output matches
// `ready` (or when `url` answers HTTP). Resolves to { child, match, output }.
export function startProcess(command, args, { env = {}, cwd = repoRoot, ready, url, timeoutMs = 60000, name = command } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} was not ready after ${timeoutMs} ms; its output:\n${output}`)), timeoutMs);
    let settled = false;
    const fail = (error) => { if (!settled) { settled = true; clearTimeout(timer); child.kill('SIGKILL'); reject(error); } };
    const succeed = (match) => { if (!settled) { settled = true; clearTimeout(timer); resolve({ child, match, output: () => output }); } };
    const onData = (data) => {
      output += data.toString();
      if (ready) { const m = output.match(ready); if (m) succeed(m); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => fail(new Error(`${name} exited early (${code ?? signal}); its output:\n${output}`)));
    child.on('error', fail);
    if (url) {
      const poll = async () => {
        while (!settled) {
          try { await fetch(url); succeed(null); return; } catch { await new Promise((r) => setTimeout(r, 100)); }
        }
      };
      poll();
    }
  });
}

export function stop(processHandle) {
  if (processHandle?.child && processHandle.child.exitCode === null) processHandle.child.kill('SIGTERM');
}

// `kgb oracle-server` on a free port; resolves to { url (…/v1), origin, stop }.
export async function startOracle(extra = []) {
  const handle = await startProcess(kgbBinary(), ['oracle-server', '--port', '0', ...extra], {
    ready: /listening on (http:\/\/[^\s]+)/, name: 'kgb oracle-server' });
  const url = handle.match[1];
  return { ...handle, url, origin: url.replace(/\/v1$/, '') };
}

// mock-llm with a configuration (an object written as JSON, which is YAML).
export async function startMockLlm(config) {
  const dir = tempDir('mock-llm');
  const file = path.join(dir, 'mock-llm.yaml');
  writeFileSync(file, JSON.stringify(config, null, 2));
  const port = await freePort();
  const main = path.join(here, 'node_modules/@dwmkerr/mock-llm/dist/main.js');
  const handle = await startProcess(process.execPath, [main, '--config', file], {
    env: { PORT: String(port), HOST: '127.0.0.1' }, cwd: dir, url: `http://127.0.0.1:${port}/health`, name: 'mock-llm' });
  return { ...handle, url: `http://127.0.0.1:${port}/v1`, port };
}

// claude-code-router in front of an OpenAI-compatible server at `backendUrl`
// (…/v1), serving Anthropic's /v1/messages; resolves to { origin, url }.
export async function startGateway(backendUrl, model = 'oracle') {
  const home = tempDir('ccr');
  mkdirSync(path.join(home, '.claude-code-router'), { recursive: true });
  const port = await freePort();
  writeFileSync(path.join(home, '.claude-code-router', 'config.json'), JSON.stringify({
    LOG: false, HOST: '127.0.0.1', PORT: port, NON_INTERACTIVE_MODE: true, API_TIMEOUT_MS: 120000,
    Providers: [{ name: 'kgb', api_base_url: `${backendUrl}/chat/completions`, api_key: 'none', models: [model] }],
    Router: { default: `kgb,${model}` },
  }));
  const cli = path.join(here, 'node_modules/@musistudio/claude-code-router/dist/cli.js');
  const handle = await startProcess(process.execPath, [cli, 'start'], {
    env: { HOME: home }, url: `http://127.0.0.1:${port}/`, name: 'claude-code-router', timeoutMs: 90000 });
  return { ...handle, origin: `http://127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/v1` };
}

// Runs kgb to the end; resolves to { code, stdout, stderr }. No API keys
// are passed on: local servers need none.
export function runKgb(args, { env = {}, timeoutMs = 300000 } = {}) {
  const clean = { ...process.env, ...env };
  for (const key of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'HTTP_PROXY', 'HTTPS_PROXY', 'http_proxy', 'https_proxy'])
    if (!(key in env)) delete clean[key];
  return new Promise((resolve, reject) => {
    const child = spawn(kgbBinary(), args, { cwd: repoRoot, env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`kgb ${args.join(' ')} ran past ${timeoutMs} ms\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

// Rows of one table of a run, through `kgb export`.
export async function exportRows(store, runId, table) {
  const out = await runKgb(['export', runId, '--store', store, '--table', table, '--format', 'jsonl']);
  if (out.code !== 0) throw new Error(`kgb export failed: ${out.stderr}`);
  return out.stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

export function bundledSolution(task, file = 'cpu.cpp') {
  return readFileSync(path.join(repoRoot, 'benchmark/tasks', task, 'solutions', file), 'utf8');
}

export const kernelPrompt = (task = 'blas/saxpy', platform = 'cpu-x86_64') =>
  `Write the kernel.\n\nTask: ${task}\nPlatform: ${platform}\n`;

// The agent's tools as JSON Schema: each takes the complete source file.
export const sourceSchema = {
  type: 'object', properties: { source: { type: 'string', description: 'the complete source file' } }, required: ['source'],
};
export const agentToolNames = ['lint', 'compile', 'run', 'profile', 'submit'];

// What kgb's harness would say about a draft of the oracle, by its marks:
// draft 1 calls an undeclared function, draft 2 wraps the entry to corrupt
// its output. Used where a test needs tool results without compiling.
export function judged(tool, source) {
  const broken = source.includes('kgb_validate_arguments');
  const wrong = source.includes('_oracle_impl');
  let outcome = tool === 'lint' ? 'clean' : tool === 'compile' ? 'compiled' : 'passed';
  if (broken) outcome = tool === 'lint' ? 'parse-errors' : 'compile-error';
  else if (wrong && tool !== 'lint' && tool !== 'compile') outcome = 'wrong-result';
  return `tool: ${tool}\noutcome: ${outcome}\n`;
}

// The error of the first of up to `tries` calls `attempt(i)` that fails, or null.
export async function firstRejection(attempt, tries = 30) {
  for (let i = 0; i < tries; i++) {
    try { await attempt(i); } catch (error) { return error; }
  }
  return null;
}
