// kgb mcp-server over stdio, with the official MCP SDK as the client: the
// handshake, every tool on blas/saxpy (a correct kernel, a wrong one, a
// compile error, a lint rejection), resources and the prompt, usage reports,
// then the run store read back: it holds the attempt exactly as it happened.
// Then raw malformed input on the server's stdin, stdout purity, and the
// token, kernel and wall-time budgets, and the --json contract of the
// commands beside the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';

import {
  McpError, saxpy, fastEval, run, exportTable, tempDir, text, kgb, root, rawStdioServer, stdioClient,
} from './support.mjs';

const platform = 'cpu-x86_64';

test('every tool over stdio, and the attempt in the store afterwards', async () => {
  const dir = tempDir('stdio');
  const store = path.join(dir, 'runs.db');
  const runId = 'mcp-stdio-test';
  const { client, log: serverLog } = await stdioClient(['--store', store, '--run', runId, '--platform', platform,
    '--tasks', 'blas/saxpy,blas/sgemm,aten/add', '--progress-interval', '0.2', ...fastEval], 'stdio-test-agent', '2.1');
  const calls = [];  // [tool, outcome] in the order the store must show them
  let attemptId;
  try {
    assert.equal(client.getServerVersion().name, 'kgb');
    assert.match(client.getInstructions(), /start_attempt/);
    assert.ok(client.getServerCapabilities().tools);

    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name),
      ['list_tasks', 'show_task', 'start_attempt', 'lint', 'compile', 'evaluate', 'submit', 'report_usage', 'attempt_status']);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.ok(t.outputSchema, `${t.name} has an output schema`);
    }

    // Browsing.
    const list = await client.callTool({ name: 'list_tasks', arguments: { source: 'blas' } });
    assert.deepEqual(list.structuredContent.tasks.map((t) => t.id), ['blas/saxpy', 'blas/sgemm']);
    const shown = await client.callTool({ name: 'show_task', arguments: { task: 'blas/saxpy' } });
    const cli = run(['show', 'blas/saxpy', '--platform', platform]);
    assert.equal(cli.status, 0);
    assert.equal(text(shown), cli.stdout, 'show_task is exactly `kgb show`');
    assert.equal(shown.structuredContent.statement, cli.stdout);
    const unknown = await client.callTool({ name: 'show_task', arguments: { task: 'aten/softmax' } });
    assert.equal(unknown.isError, true, 'a task outside --tasks is unknown here');
    assert.match(text(unknown), /unknown task 'aten\/softmax'/);

    // Resources and the prompt.
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'kgb://abi/kgb_kernel.h'));
    assert.ok(resources.some((r) => r.uri === 'kgb://tasks/blas/saxpy'));
    const abi = await client.readResource({ uri: 'kgb://abi/kgb_kernel.h' });
    assert.equal(abi.contents[0].text, readFileSync(path.join(root, 'benchmark/abi/kgb_kernel.h'), 'utf8'));
    const statement = await client.readResource({ uri: 'kgb://tasks/blas/saxpy' });
    assert.equal(statement.contents[0].text, cli.stdout);
    for (const uri of ['kgb://tasks/../../etc/passwd', 'file:///etc/passwd', 'kgb://tasks/aten/softmax']) {
      await assert.rejects(client.readResource({ uri }), (e) => e instanceof McpError && e.code === -32002, uri);
    }
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.equal(resourceTemplates[0].uriTemplate, 'kgb://tasks/{source}/{name}');
    const prompt = await client.getPrompt({ name: 'solve_task', arguments: { task: 'blas/saxpy' } });
    assert.match(prompt.messages[0].content.text, /Task: blas\/saxpy/);
    assert.ok(prompt.messages[0].content.text.includes(cli.stdout.trim().split('\n')[0]));

    // Kernel tools need an attempt.
    const early = await client.callTool({ name: 'lint', arguments: { source: saxpy.correct } });
    assert.equal(early.isError, true);
    assert.match(text(early), /no attempt is open/);

    const opened = await client.callTool({ name: 'start_attempt', arguments: { task: 'blas/saxpy' } });
    assert.equal(opened.isError, false);
    attemptId = opened.structuredContent.attempt.id;
    assert.equal(opened.structuredContent.attempt.task, 'blas/saxpy');
    const again = await client.callTool({ name: 'start_attempt', arguments: { task: 'aten/add' } });
    assert.equal(again.isError, true, 'one attempt at a time');

    const kernel = async (name, args) => {
      const r = await client.callTool({ name, arguments: args });
      calls.push([name, r.structuredContent?.outcome ?? 'refused']);
      return r;
    };

    const lintOk = await kernel('lint', { source: saxpy.correct });
    assert.equal(lintOk.structuredContent.outcome, 'clean');
    const lintBad = await kernel('lint', { source: saxpy.lintRejected });
    assert.equal(lintBad.structuredContent.outcome, 'rejected');
    assert.match(text(lintBad), /process-escape/);

    const compileBad = await kernel('compile', { source: saxpy.compileError });
    assert.equal(compileBad.structuredContent.outcome, 'compile-error');
    assert.ok(compileBad.structuredContent.result.diagnostics.some((d) => /no_such_function/.test(d.message)));
    const compileOk = await kernel('compile', { source: saxpy.correct });
    assert.equal(compileOk.structuredContent.outcome, 'compiled');

    const wrong = await kernel('evaluate', { source: saxpy.wrong, correctness_only: true });
    assert.equal(wrong.structuredContent.outcome, 'wrong-result');
    assert.equal(wrong.structuredContent.correct, false);
    assert.ok(wrong.structuredContent.result.failed_cases.length > 0);
    assert.match(text(wrong), /failed case: .*first mismatch/);

    const rejected = await kernel('evaluate', { source: saxpy.lintRejected, correctness_only: true });
    assert.equal(rejected.structuredContent.outcome, 'lint-rejected');

    // The verdict is the CLI's: same outcome, stage and cases for the same kernel.
    const progress = [];
    const good = await client.callTool({ name: 'evaluate', arguments: { source: saxpy.correct } }, undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true });
    calls.push(['evaluate', good.structuredContent.outcome]);
    assert.equal(good.structuredContent.outcome, 'passed');
    assert.equal(good.structuredContent.correct, true);
    assert.ok(good.structuredContent.speedup > 0, 'timed against the baseline');
    assert.ok(progress.length > 0, 'progress notifications while it ran');
    const kernelFile = path.join(tempDir('kernel'), 'saxpy.cpp');
    writeFileSync(kernelFile, saxpy.correct);
    const cliEval = run(['eval', 'blas/saxpy', '--platform', platform, '--kernel', kernelFile, '--json', ...fastEval]);
    const cliVerdict = JSON.parse(cliEval.stdout);
    const mcpVerdict = good.structuredContent.verdict;
    assert.equal(mcpVerdict.outcome, cliVerdict.outcome);
    assert.equal(mcpVerdict.stage, cliVerdict.stage);
    assert.deepEqual(mcpVerdict.cases.map((c) => [c.name, c.dtype, c.passed]), cliVerdict.cases.map((c) => [c.name, c.dtype, c.passed]));
    assert.deepEqual(mcpVerdict.timings.map((t) => t.name), cliVerdict.timings.map((t) => t.name));

    const bad = await client.callTool({ name: 'evaluate', arguments: { source: saxpy.correct, correctness: true } });
    assert.equal(bad.isError, true, 'a misspelt argument is a tool error the model can fix');
    assert.match(text(bad), /unknown argument 'correctness'/);
    calls.push(['evaluate', 'bad-arguments']);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => e instanceof McpError && e.code === -32602);

    const usage = await client.callTool({ name: 'report_usage', arguments: { input_tokens: 1200, output_tokens: 300, cost_usd: 0.02, model: 'test-model' } });
    assert.equal(usage.isError, false);
    assert.equal(usage.structuredContent.recorded.reported_by, 'agent');
    calls.push(['report_usage', 'recorded']);

    const submitted = await kernel('submit', { source: saxpy.correct });
    assert.equal(submitted.structuredContent.outcome, 'passed');
    assert.equal(submitted.structuredContent.attempt.status, 'solved');
    assert.equal(submitted.structuredContent.attempt.end_reason, 'submitted');
    const after = await client.callTool({ name: 'evaluate', arguments: { source: saxpy.correct } });
    assert.equal(after.isError, true);
    assert.match(text(after), /has ended \(submitted\)/);

    await client.ping();
  } finally {
    await client.close();  // also when an assertion failed: no server is left behind
  }

  // The store holds the attempt exactly.
  const attempts = exportTable(store, runId, 'attempts');
  assert.equal(attempts.length, 1);
  const a = attempts[0];
  assert.equal(a.id, attemptId);
  assert.equal(a.task, 'blas/saxpy');
  assert.equal(a.status, 'solved');
  assert.equal(a.stop_reason, 'submitted');
  assert.equal(a.correct, 1);
  assert.equal(a.input_tokens, 1200);
  assert.equal(a.output_tokens, 300);
  assert.ok(Math.abs(a.cost_usd - 0.02) < 1e-9);
  assert.equal(a.result.client.name, 'stdio-test-agent');
  assert.equal(a.result.submitted, true);
  assert.equal(a.result.evaluations, 4, 'evaluate x3 and submit; the refused ones do not count');
  assert.ok(a.seconds > 0);

  const toolCalls = exportTable(store, runId, 'tool_calls').filter((t) => t.tool !== 'show_task');
  assert.deepEqual(toolCalls.map((t) => [t.tool, t.outcome]), calls);
  assert.ok(toolCalls.every((t) => t.status === 'done'));
  assert.ok(toolCalls.filter((t) => t.tool !== 'report_usage' && t.outcome !== 'bad-arguments')
    .every((t) => /^sha256:[0-9a-f]{64}$/.test(t.arguments.source)), 'sources are stored once, by hash');

  const evaluations = exportTable(store, runId, 'evaluations');
  assert.deepEqual(evaluations.map((e) => [e.purpose, e.outcome]),
    [['evaluate', 'wrong-result'], ['evaluate', 'lint-rejected'], ['evaluate', 'passed'], ['submit', 'passed']]);
  const kernels = new Map(exportTable(store, runId, 'kernels').map((k) => [k.sha256, k.source]));
  assert.equal(kernels.get(evaluations[2].kernel), saxpy.correct);
  assert.equal(kernels.get(a.best_kernel), saxpy.correct);

  // Iterations: one per distinct kernel, in the order they were first used.
  const iterations = exportTable(store, runId, 'iterations');
  const sources = iterations.map((it) => kernels.get(it.kernel));
  assert.deepEqual(sources, [saxpy.correct, saxpy.lintRejected, saxpy.compileError, saxpy.correct, saxpy.wrong,
                             saxpy.lintRejected, saxpy.correct]);
  assert.equal(iterations.at(-1).correct, 1);
  assert.equal(a.best_iteration, iterations.length - 1);

  const llm = exportTable(store, runId, 'llm_calls');
  assert.equal(llm.length, 1);
  assert.equal(llm[0].provider, 'agent');
  assert.equal(llm[0].request.reported_by, 'agent');
  assert.equal(llm[0].model, 'test-model');

  const runs = exportTable(store, runId, 'runs');
  assert.equal(runs[0].policy, 'mcp');
  assert.equal(runs[0].model, 'stdio-test-agent 2.1');
  assert.equal(runs[0].status, 'finished');
  assert.ok(!/run store:/.test(serverLog()), serverLog());
});

// Raw lines on stdin: the answers the protocol prescribes, and the server keeps going.
test('malformed input on stdin', async () => {
  const dir = tempDir('stdio-raw');
  const server = rawStdioServer(['--store', path.join(dir, 'runs.db'), '--tasks', 'blas/saxpy']);
  const { lines, sendLine: send } = server;
  try {

    send('this is not json');
    send('{"jsonrpc":"2.0","id":1,"method":"tools/list"');
    send('[{"jsonrpc":"2.0","id":2,"method":"ping"}]');
    send('{"jsonrpc":"2.0","id":3,"method":"tools/list"}');  // before initialize
    send('{"jsonrpc":"2.0","method":"notifications/whatever"}');  // ignored
    send(`{"jsonrpc":"2.0","id":4,"method":"x","params":{"deep":${'['.repeat(100000)}}}`);
    send('');
    await server.count(5);
    assert.deepEqual(lines.slice(0, 5).map((l) => [l.id, l.error.code]),
      [[null, -32700], [null, -32700], [null, -32600], [3, -32600], [null, -32700]]);

    send('{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}');
    await server.count(6);
    assert.equal(lines[5].id, 'i');
    assert.equal(lines[5].result.protocolVersion, '2025-06-18');
    send('{"jsonrpc":"2.0","id":"i2","method":"initialize","params":{"protocolVersion":"2025-06-18"}}');
    send('{"jsonrpc":"2.0","id":5,"method":"no/such/method"}');
    send('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"arguments":{}}}');
    send('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"lint","arguments":"source"}}');
    send('{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{}}');
    send('{"jsonrpc":"2.0","id":9,"method":"ping"}');
    // A line longer than the limit (4 MiB) is refused once; the next line is read normally.
    send(`{"jsonrpc":"2.0","id":10,"method":"ping","params":{"pad":"${'x'.repeat(5 << 20)}"}}`);
    send('{"jsonrpc":"2.0","id":11,"method":"ping"}');
    await server.count(14);
    const byId = new Map(lines.slice(6).map((l) => [JSON.stringify(l.id), l]));
    assert.equal(byId.get('"i2"').error.code, -32600);
    assert.equal(byId.get('5').error.code, -32601);
    assert.equal(byId.get('6').error.code, -32602);
    assert.equal(byId.get('7').result.isError, true, 'arguments that are not an object: a tool error');
    assert.equal(byId.get('8').error.code, -32602);
    assert.deepEqual(byId.get('9').result, {});
    assert.equal(byId.get('null').error.code, -32700);
    assert.deepEqual(byId.get('11').result, {});
    server.proc.stdin.end();
    assert.equal(await server.exited, 0, 'a closed stdin ends the server cleanly');
  } finally {
    server.kill();
  }
});

test('a server whose client vanishes ends its attempt and exits', async () => {
  const dir = tempDir('stdio-gone');
  const store = path.join(dir, 'runs.db');
  const proc = spawn(kgb, ['mcp-server', '--store', store, '--run', 'gone', '--task', 'blas/saxpy', ...fastEval],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  try {
    proc.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"gone","version":"1"}}}\n');
    proc.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'evaluate', arguments: { source: saxpy.correct, correctness_only: true } } })}\n`);
    // Close both pipes while the evaluation runs: it finishes, is recorded, and the attempt ends.
    await new Promise((r) => setTimeout(r, 300));
    proc.stdout.destroy();
    proc.stdin.end();
    assert.equal(await exited, 0);
    const [a] = exportTable(store, 'gone', 'attempts');
    assert.equal(a.task, 'blas/saxpy');
    assert.equal(a.stop_reason, 'session-ended');
    assert.equal(a.status, 'solved', 'the best kernel evaluated counts, as for the loop policies');
    assert.equal(a.result.submitted, false);
    const [call] = exportTable(store, 'gone', 'tool_calls');
    assert.equal(call.tool, 'evaluate');
    assert.equal(call.status, 'done');
    assert.equal(call.outcome, 'passed');
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
});

test('a cancelled call gets no answer but is recorded; an oversized source is refused', async () => {
  const dir = tempDir('stdio-cancel');
  const store = path.join(dir, 'runs.db');
  const server = rawStdioServer(['--store', store, '--run', 'cancel', '--task', 'blas/saxpy', ...fastEval]);
  const { send, answer, lines } = server;
  try {
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', clientInfo: { name: 'c', version: '1' } } });
    await answer(1);
    send({ id: 2, method: 'tools/call', params: { name: 'evaluate', arguments: { source: saxpy.correct, correctness_only: true } } });
    send({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'the user moved on' } });
    send({ id: 3, method: 'tools/call', params: { name: 'lint', arguments: { source: `// ${'x'.repeat(3 << 19)}` } } });
    const big = await answer(3);
    assert.equal(big.result.isError, true);
    assert.match(big.result.content[0].text, /the source is \d+ bytes; the limit is 1048576 bytes/);
    // The cancelled evaluation goes on to the end and is recorded; its answer is never sent.
    let calls = [];
    for (let i = 0; i < 600 && !calls.some((c) => c.tool === 'evaluate' && c.status === 'done'); ++i) {
      await new Promise((r) => setTimeout(r, 100));
      calls = exportTable(store, 'cancel', 'tool_calls');
    }
    send({ id: 4, method: 'ping' });
    await answer(4);
    assert.equal(lines.find((l) => l.id === 2), undefined, 'no answer to a cancelled request');
    assert.deepEqual(calls.map((c) => [c.tool, c.outcome]), [['evaluate', 'passed'], ['lint', 'source-too-large']]);
    server.proc.stdin.end();
    assert.equal(await server.exited, 0);
  } finally {
    server.kill();
  }
});

// Stdout is the protocol's alone: a kernel (lint off, so nothing stops it) that
// prints to its stdout and stderr leaves no byte on the client's stdout that is
// not a JSON-RPC line (rawStdioServer parses every line as it comes, and the
// whole stream is checked at the end).
test('nothing but JSON-RPC on stdout, whatever a kernel prints', async () => {
  const dir = tempDir('stdio-pure');
  const store = path.join(dir, 'runs.db');
  const noisy = saxpy.correct.replace('#include "kgb_kernel.h"', `#include <stdio.h>
#include "kgb_kernel.h"
namespace {
struct Noise {
  Noise() {
    printf("stray stdout from a kernel\\n");
    fflush(stdout);
    fprintf(stderr, "stray stderr from a kernel\\n");
  }
} noise;
}  // namespace`);
  assert.notEqual(noisy, saxpy.correct);
  const server = rawStdioServer(['--store', store, '--run', 'pure', '--task', 'blas/saxpy', '--no-lint', '--no-time', ...fastEval]);
  const { send, answer, lines } = server;
  let raw = '';
  server.proc.stdout.on('data', (d) => { raw += d; });
  try {
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', clientInfo: { name: 'p', version: '1' } } });
    await answer(1);
    send({ id: 2, method: 'tools/call', params: { name: 'evaluate', arguments: { source: noisy } } });
    const evaluated = await answer(2);
    assert.equal(evaluated.result.structuredContent.outcome, 'passed', JSON.stringify(evaluated.result.structuredContent));
    // What the kernel printed is data of the verdict, not bytes of the stream.
    assert.equal(evaluated.result.structuredContent.verdict.child_stdout, 'stray stdout from a kernel\n');
    send({ id: 3, method: 'tools/call', params: { name: 'submit', arguments: { source: noisy } } });
    assert.equal((await answer(3)).result.structuredContent.attempt.status, 'solved');
    server.proc.stdin.end();
    assert.equal(await server.exited, 0);
    const rawLines = raw.split('\n');
    assert.equal(rawLines.pop(), '', 'stdout ends with a whole line');
    assert.ok(rawLines.length >= 3 && rawLines.every((l) => JSON.parse(l).jsonrpc === '2.0'), raw);
  } finally {
    server.kill();
  }
});

// The other budgets, each in a server of its own on one run: tokens the agent
// reported, distinct kernels, and wall time. The call past a budget is refused
// with the budget named, and the attempt ends there with that stop reason.
test('token, kernel and wall-time budgets refuse the next call and end the attempt', async () => {
  const dir = tempDir('stdio-budgets');
  const store = path.join(dir, 'runs.db');
  const runId = 'budgets';
  const session = async (budgetArgs, body) => {
    const { client } = await stdioClient(['--store', store, '--run', runId, '--platform', platform, '--task', 'blas/saxpy',
      ...budgetArgs, ...fastEval], 'budget-test-agent');
    try {
      await body(client);
    } finally {
      await client.close();
    }
  };
  const lint = (client, source) => client.callTool({ name: 'lint', arguments: { source } });

  await session(['--budget-tokens', '1000'], async (client) => {
    assert.equal((await lint(client, saxpy.correct)).structuredContent.outcome, 'clean');
    const usage = await client.callTool({ name: 'report_usage', arguments: { input_tokens: 800, output_tokens: 300 } });
    assert.equal(usage.isError, false, 'reporting usage is never refused: it is how the budget is known');
    const refused = await lint(client, saxpy.correct);
    assert.equal(refused.isError, true);
    assert.match(text(refused), /budget exhausted \(total tokens: 1100 of 1000 spent\)/);
  });
  await session(['--max-iters', '2'], async (client) => {
    assert.equal((await lint(client, saxpy.correct)).isError, false);
    assert.equal((await lint(client, saxpy.wrong)).isError, false);
    assert.equal((await lint(client, saxpy.wrong)).isError, false, 'the same kernel again is no new one');
    const refused = await lint(client, saxpy.compileError);
    assert.equal(refused.isError, true);
    assert.match(text(refused), /budget exhausted \(kernels: 2 of 2 tried\)/);
  });
  await session(['--wall-time', '1'], async (client) => {
    assert.equal((await lint(client, saxpy.correct)).isError, false);
    await new Promise((r) => setTimeout(r, 1200));
    const refused = await lint(client, saxpy.correct);
    assert.equal(refused.isError, true);
    assert.match(text(refused), /budget exhausted \(wall seconds: [\d.]+ of 1 spent\)/);
    const status = await client.callTool({ name: 'attempt_status', arguments: {} });
    assert.equal(status.structuredContent.attempt.end_reason, 'budget:wall-time');
  });

  const attempts = exportTable(store, runId, 'attempts');
  assert.deepEqual(attempts.map((a) => [a.sample, a.stop_reason, a.status]),
    [[0, 'budget:total-tokens', 'budget'], [1, 'budget:iterations', 'budget'], [2, 'budget:wall-time', 'budget']],
    'no kernel was evaluated, so each attempt ends on its budget');
  assert.equal(attempts[0].input_tokens + attempts[0].output_tokens, 1100);
  const refusals = exportTable(store, runId, 'tool_calls').filter((c) => c.outcome === 'budget');
  assert.deepEqual(refusals.map((c) => [c.attempt_id, c.tool]), attempts.map((a) => [a.id, 'lint']));
});

// The --json contract: `kgb mcp-usage --json` prints one document, on success
// and on failure; `kgb mcp-server --json` is refused (its stdout is the
// protocol's), as one error document that says where the JSON is instead.
test('kgb mcp-usage --json prints one document; kgb mcp-server refuses --json with the reason', async () => {
  const dir = tempDir('usage-json');
  const store = path.join(dir, 'runs.db');
  const runId = 'usage-json';
  const { client } = await stdioClient(['--store', store, '--run', runId, '--platform', platform, '--task', 'blas/saxpy'],
    'usage-json-agent');
  try {
    assert.equal((await client.callTool({ name: 'lint', arguments: { source: saxpy.correct } })).isError, false);
  } finally {
    await client.close();
  }
  const [attempt] = exportTable(store, runId, 'attempts');

  // Claude Code's result: Anthropic's input_tokens leave out the cache reads and writes.
  const result = path.join(dir, 'claude-result.json');
  writeFileSync(result, JSON.stringify({
    type: 'result', total_cost_usd: 0.01, duration_api_ms: 1200,
    usage: { input_tokens: 100, cache_read_input_tokens: 50, cache_creation_input_tokens: 10, output_tokens: 40 },
  }));
  const ok = run(['mcp-usage', '--store', store, '--run', runId, '--task', 'blas/saxpy', '--file', result, '--json']);
  assert.equal(ok.status, 0, ok.stderr);
  const doc = JSON.parse(ok.stdout);  // the whole of stdout: one document
  assert.equal(doc.attempt_id, attempt.id);
  assert.deepEqual(doc.recorded, {
    input_tokens: 160, cached_input_tokens: 50, cache_write_tokens: 10, output_tokens: 40, reasoning_tokens: 0,
    reported_by: 'agent', cost_usd: 0.01,
  });
  assert.equal(doc.attempt.total_tokens, 200);
  assert.equal(exportTable(store, runId, 'attempts')[0].input_tokens, 160);

  const noTokens = path.join(dir, 'log.txt');
  writeFileSync(noTokens, 'the agent printed prose, no usage\n');
  for (const [args, pattern] of [
    [['--run', runId, '--task', 'blas/saxpy', '--file', noTokens], /usage/],
    [['--run', 'no-such-run', '--task', 'blas/saxpy', '--file', result], /no-such-run/],
  ]) {
    const failed = run(['mcp-usage', '--store', store, ...args, '--json']);
    assert.equal(failed.status, 2, failed.stderr);
    assert.match(JSON.parse(failed.stdout).error.message, pattern);
  }
  assert.equal(exportTable(store, runId, 'llm_calls').length, 1, 'a refused import records nothing');

  const server = run(['mcp-server', '--store', store, '--json'], { input: '' });
  assert.equal(server.status, 2);
  assert.match(JSON.parse(server.stdout).error.message, /takes no --json: .*--info-file/);
});
