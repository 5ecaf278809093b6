// kgb as the client of a third-party OpenAI-compatible mock server,
// @dwmkerr/mock-llm (rules matched with JMESPath; streams without usage):
// `kgb chat` (no API key needed for a local server), provider-specific request
// fields reaching the server, and short `kgb run`s (refine and tool-agent)
// whose usage, never reported by the server, is estimated and marked so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { bundledSolution, exportRows, kernelPrompt, runKgb, startMockLlm, stop, tempDir } from './support.mjs';

let mock;
const solution = bundledSolution('blas/saxpy');
const fenced = `Here is the kernel.\n\n\`\`\`cpp\n${solution}\`\`\`\n`;
const reply = (content) => JSON.stringify({
  id: 'chatcmpl-mock', object: 'chat.completion', model: 'mock',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

before(async () => {
  assert.ok(!solution.includes('{{'), 'the solution must not look like a mock-llm template');
  mock = await startMockLlm({
    streaming: { chunkSize: 200, chunkIntervalMs: 0 },
    rules: [
      // Rules are evaluated in order, the last match wins.
      { path: '/v1/chat/completions', method: 'POST', match: '@', response: { status: 200, content: reply('I only know saxpy.') } },
      { path: '/v1/chat/completions', method: 'POST', match: "contains(to_string(body.messages), 'Task: blas/saxpy')",
        response: { status: 200, content: reply(fenced) } },
      { path: '/v1/chat/completions', method: 'POST', match: 'body.top_k == `40`',
        response: { status: 200, content: reply('top_k arrived') } },
      { path: '/v1/chat/completions', method: 'POST', match: "contains(body.messages[-1].content, 'error-401')",
        response: { status: 401, content: JSON.stringify({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } }) } },
    ],
  });
});
after(() => stop(mock));

test('kgb chat: streamed and whole, no API key needed, usage not reported by the server', async () => {
  for (const stream of [false, true]) {
    const args = ['chat', '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', '--system', 'x', '--json', kernelPrompt()];
    if (stream) args.splice(1, 0, '--stream');
    const out = await runKgb(args);
    assert.equal(out.code, 0, out.stderr);
    const result = JSON.parse(out.stdout);
    assert.equal(result.ok, true);
    assert.ok(result.text.includes(solution.trim()));
    assert.equal(result.finish_reason, 'stop');
    assert.equal(result.usage.reported, false);
  }
  const refused = await runKgb(['chat', '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', 'error-401']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /HTTP 401/);
  assert.match(refused.stderr, /no API key was sent: set OPENAI_API_KEY/);
});

test('kgb chat --extra: a provider-specific field reaches the server', async () => {
  const out = await runKgb(['chat', '--provider', 'openai', '--base-url', mock.url, '--model', 'mock', '--extra', 'top_k=40', 'hello']);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /top_k arrived/);
});

test('kgb run, refine and tool-agent, streamed: solved, with usage estimated and marked', async () => {
  const dir = tempDir('mock-run');
  const store = path.join(dir, 'runs.db');
  for (const policy of ['refine', 'tool-agent']) {
    const runId = `mock-${policy}`;
    const out = await runKgb(['run', '--policy', policy, '--provider', 'openai', '--base-url', mock.url, '--model', 'mock',
      '--platform', 'cpu-x86_64', '--tasks', 'blas/saxpy', '--no-time', '--no-lint', '--stream', '--store', store,
      '--run-id', runId, '--budget-tokens', '100000', '--json']);
    assert.equal(out.code, 0, out.stderr);
    const summary = JSON.parse(out.stdout);
    assert.equal(summary.tasks_solved, 1, out.stdout);
    assert.equal(summary.llm_calls, 1);
    assert.equal(summary.llm_calls_usage_estimated, 1);
    assert.ok(summary.spend.input_tokens > 0 && summary.spend.output_tokens > 0);
    const calls = await exportRows(store, runId, 'llm_calls');
    assert.equal(calls.length, 1);
    assert.equal(calls[0].usage_source, 'estimated');
    assert.equal(calls[0].output_tokens, Math.ceil(Buffer.byteLength(fenced) / 4));  // kgb's 4-bytes-a-token estimate
    const report = await runKgb(['report', runId, '--store', store]);
    assert.equal(report.code, 0, report.stderr);
    assert.match(report.stdout, /estimated in part/);
    assert.match(report.stdout, /1 with estimated usage/);
  }
});
