// End to end: an external agent (examples/mcp/agent.mjs: the official MCP SDK
// as client, the oracle model server over HTTP as its model) solves tasks
// through `kgb mcp-server`, driven by the sweep script (one agent process per
// task, usage imported with `kgb mcp-usage`); an internal `kgb run` over the
// same tasks goes into the same store, and `kgb report` shows both runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

import { kgb, root, run, exportTable, tempDir, fastEval } from './support.mjs';

const tasks = ['blas/saxpy', 'aten/add', 'vllm/silu_and_mul'];

async function startOracle() {
  const proc = spawn(kgb, ['oracle-server', '--port', '0', '--compile-error-attempts', '1', '--wrong-result-attempts', '1'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  for (let i = 0; i < 300 && !/listening on (\S+)/.test(out); ++i) await new Promise((r) => setTimeout(r, 50));
  const url = /listening on (\S+)/.exec(out)?.[1];
  assert.ok(url, `the oracle did not start: ${out}`);
  return { url, stop: () => new Promise((resolve) => { proc.on('exit', resolve); proc.kill('SIGTERM'); }) };
}

test('an SDK agent driven by the oracle solves tasks through the MCP server; kgb report shows the run', async () => {
  const dir = tempDir('e2e');
  const store = path.join(dir, 'runs.db');
  const oracle = await startOracle();
  try {
    const agent = `node ${path.join(root, 'examples/mcp/agent.mjs')} --mcp-config {mcp_config} --model-url ${oracle.url}`;
    const started = Date.now();
    const sweep = spawnSync('bash', [path.join(root, 'examples/mcp/sweep.sh'), '--agent', agent, '--tasks', tasks.join(','),
      '--store', store, '--run', 'mcp-e2e', '--parallel', '3', '--out', path.join(dir, 'sweep'), '--', ...fastEval],
    { encoding: 'utf8', env: { ...process.env, KGB: kgb }, maxBuffer: 64 << 20 });
    const seconds = (Date.now() - started) / 1000;
    assert.equal(sweep.status, 0, `${sweep.stdout}\n${sweep.stderr}`);
    assert.match(sweep.stdout, /sweep: 3 task\(s\) on cpu-x86_64, run mcp-e2e/);
    assert.equal(sweep.stdout.match(/recorded \d+ tokens \(reported by the agent\) on attempt \d+/g)?.length, tasks.length,
      'one usage import per task');

    const attempts = exportTable(store, 'mcp-e2e', 'attempts');
    assert.deepEqual(attempts.map((a) => [a.task, a.status, a.stop_reason]).sort(),
      tasks.map((t) => [t, 'solved', 'submitted']).sort());
    const calls = exportTable(store, 'mcp-e2e', 'tool_calls');
    const llm = exportTable(store, 'mcp-e2e', 'llm_calls');
    for (const a of attempts) {
      // The oracle's first kernel fails to compile, its second is wrong, its third is right.
      const iterations = exportTable(store, 'mcp-e2e', 'iterations').filter((it) => it.attempt_id === a.id);
      assert.equal(iterations.length, 3, a.task);
      assert.deepEqual(iterations.map((it) => it.correct), [0, 0, 1], a.task);
      const mine = calls.filter((c) => c.attempt_id === a.id).map((c) => c.tool);
      assert.deepEqual(mine, ['attempt_status', 'evaluate', 'evaluate', 'evaluate', 'submit'], a.task);
      const usage = llm.filter((c) => c.attempt_id === a.id);
      assert.equal(usage.length, 1, 'one usage import per attempt');
      assert.equal(usage[0].provider, 'agent');
      assert.equal(usage[0].request.source, 'import');
      assert.ok(a.input_tokens > 0 && a.output_tokens > 0, 'the oracle\'s usage, as the agent reported it');
      assert.equal(a.input_tokens + a.output_tokens, usage[0].input_tokens + usage[0].output_tokens);
    }

    // An internal run of the refine policy over the same tasks, in the same store.
    const internal = run(['run', '--policy', 'refine', '--provider', 'oracle', '--tasks', tasks.join(','), '--store', store,
      '--run-id', 'refine-e2e', '--oracle-compile-errors', '1', '--oracle-wrong-results', '1', ...fastEval]);
    assert.equal(internal.status, 0, internal.stdout + internal.stderr);

    const report = run(['report', 'refine-e2e', 'mcp-e2e', '--store', store]);
    assert.equal(report.status, 0, report.stderr);
    assert.match(report.stdout, /mcp-e2e/);
    assert.match(report.stdout, /refine-e2e/);
    assert.match(report.stdout, /mcp\/kgb-example-agent 1\.0\.0/, 'the MCP run is labelled with its agent');
    const json = JSON.parse(run(['report', 'refine-e2e', 'mcp-e2e', '--store', store, '--format', 'json']).stdout);
    const byRun = new Map(json.runs.map((r) => [r.id ?? r.run?.id ?? r.label, r]));
    const mcp = byRun.get('mcp-e2e');
    assert.ok(mcp, JSON.stringify(Object.keys(json.runs[0])));
    assert.equal(mcp.accuracy, 1);
    assert.equal(byRun.get('refine-e2e').accuracy, 1);
    // The MCP run's tokens are the agent's word, and the report says so; the internal run's are not.
    assert.equal(mcp.llm_calls_usage_reported_by_agent, tasks.length);
    assert.equal(byRun.get('refine-e2e').llm_calls_usage_reported_by_agent, 0);
    assert.match(report.stdout, /\(reported by the agent\)/);
    assert.match(report.stdout, /3 usage reports of the agent/);

    const toolCalls = calls.length;
    process.stdout.write(`# e2e figures: ${attempts.filter((a) => a.status === 'solved').length}/${tasks.length} tasks solved, ` +
      `${toolCalls} tool calls, ${exportTable(store, 'mcp-e2e', 'evaluations').length} evaluations, ` +
      `sweep wall time ${seconds.toFixed(1)} s\n`);
  } finally {
    await oracle.stop();
  }
});
