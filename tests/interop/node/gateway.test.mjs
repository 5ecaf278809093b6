// kgb speaking Anthropic's API through a third-party gateway,
// @musistudio/claude-code-router (Anthropic messages in, OpenAI chat
// completions out), to `kgb oracle-server`: `kgb chat` whole and streamed, and
// short `kgb run`s whose conversations (refine's feedback, tool-agent's tool
// calls and results, streamed) cross the gateway's translation both ways.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { exportRows, kernelPrompt, runKgb, startGateway, startOracle, stop, tempDir } from './support.mjs';

let oracle, gateway;

before(async () => {
  oracle = await startOracle(['--compile-error-attempts', '1', '--wrong-result-attempts', '1']);
  gateway = await startGateway(oracle.url);
});
after(() => { stop(gateway); stop(oracle); });

test('kgb chat --provider anthropic through the gateway: whole and streamed', async () => {
  for (const stream of [false, true]) {
    const args = ['chat', '--provider', 'anthropic', '--base-url', gateway.url, '--model', 'oracle', '--json', kernelPrompt()];
    if (stream) args.splice(1, 0, '--stream');
    const out = await runKgb(args);
    assert.equal(out.code, 0, `${out.stdout}\n${out.stderr}`);
    const result = JSON.parse(out.stdout);
    assert.match(result.text, /```cpp\n[\s\S]*kgb_blas_saxpy/);
    assert.equal(result.finish_reason, 'stop');
  }
});

test('kgb run through the gateway: refine fixes both faults, tool-agent (streamed) drives its tools to a submit', async () => {
  const dir = tempDir('gateway-run');
  const store = path.join(dir, 'runs.db');
  const expected = { refine: ['compile-error', 'wrong-result', 'passed'], 'tool-agent': null };
  for (const [policy, stream] of [['refine', false], ['tool-agent', true]]) {
    const runId = `gateway-${policy}${stream ? '-stream' : ''}`;
    const args = ['run', '--policy', policy, '--provider', 'anthropic', '--base-url', gateway.url, '--model', 'oracle',
      '--platform', 'cpu-x86_64', '--tasks', 'blas/saxpy', '--no-time', '--no-lint', '--store', store, '--run-id', runId, '--json'];
    if (stream) args.push('--stream');
    const out = await runKgb(args);
    assert.equal(out.code, 0, `${out.stdout}\n${out.stderr}`);
    const summary = JSON.parse(out.stdout);
    assert.equal(summary.tasks_solved, 1, out.stdout);
    const iterations = await exportRows(store, runId, 'iterations');
    if (expected[policy]) {
      assert.deepEqual(iterations.map((i) => i.outcome), expected[policy]);
    } else {
      // Seven turns: draft 1 caught by lint or compile, draft 2 by run, then profile and submit.
      assert.equal(iterations.length, 7);
      assert.deepEqual(iterations.at(-1).detail.tool_calls, [{ tool: 'submit', outcome: 'passed' }]);
    }
    // The gateway passes usage on in whole answers but reports 0 / 0 in streams:
    // there kgb's estimate stands in, marked, so a call is never free.
    for (const call of await exportRows(store, runId, 'llm_calls')) {
      assert.equal(call.usage_source, stream ? 'estimated' : 'reported');
      assert.ok(call.input_tokens > 0 && call.output_tokens > 0);
    }
  }
});
