// kgb mcp-server over Streamable HTTP: the official SDK as client (sessions,
// SSE answers with progress, session termination), a budget refusal,
// concurrent sessions, and what the transport does with requests that are
// unauthorized, malformed, oversized, slow, or from a foreign origin; a
// kill -9 in the middle of an evaluation loses nothing already recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';

import { McpError, saxpy, fastEval, exportTable, tempDir, text, startHttpServer, httpClient } from './support.mjs';

const token = 'test-token-5f1d';
const auth = { Authorization: `Bearer ${token}` };

const initialize = (id = 1) => JSON.stringify({
  jsonrpc: '2.0', id, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

async function post(url, body, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth, ...headers },
    body,
  });
  const textBody = await response.text();
  return { status: response.status, headers: response.headers, body: textBody ? JSON.parse(textBody) : null };
}

test('sessions over HTTP: budgets, concurrency, termination, and the records', async () => {
  const dir = tempDir('http');
  const store = path.join(dir, 'runs.db');
  let thirdOutcome = '';
  const server = await startHttpServer(['--store', store, '--run', 'mcp-http-test', '--tasks', 'blas/saxpy,aten/add',
    '--token-env', 'KGB_TEST_TOKEN', '--max-evaluations', '3', '--progress-interval', '0.2', '--agent', 'http-test-agent',
    ...fastEval], { KGB_TEST_TOKEN: token });
  try {
    assert.equal(server.run_id, 'mcp-http-test');
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'loopback by default');

    // No token, or a wrong one: the SDK cannot even initialize.
    await assert.rejects(httpClient(server.url), (e) => e.code === 401);
    await assert.rejects(httpClient(server.url, { Authorization: 'Bearer wrong' }), (e) => e.code === 401);

    // A session bound to its task through the URL.
    const { client, transport } = await httpClient(`${server.url}?task=blas/saxpy`, auth);
    assert.ok(transport.sessionId, 'the server assigned a session id');
    const { tools } = await client.listTools();
    assert.ok(!tools.some((t) => t.name === 'profile'), 'no profiler on cpu-x86_64');
    const status = await client.callTool({ name: 'attempt_status', arguments: {} });
    assert.equal(status.structuredContent.attempt.task, 'blas/saxpy');
    assert.equal(status.structuredContent.attempt.evaluations.limit, 3);

    // Three evaluations, streamed with progress; the fourth kernel run is refused.
    const progress = [];
    const first = await client.callTool({ name: 'evaluate', arguments: { source: saxpy.wrong, correctness_only: true } });
    assert.equal(first.structuredContent.outcome, 'wrong-result');
    const second = await client.callTool({ name: 'evaluate', arguments: { source: saxpy.correct } }, undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true });
    assert.equal(second.structuredContent.outcome, 'passed');
    assert.ok(progress.length > 0, 'progress notifications arrived on the SSE stream');
    const third = await client.callTool({ name: 'evaluate', arguments: { source: saxpy.compileError } });
    thirdOutcome = third.structuredContent.outcome;
    assert.notEqual(thirdOutcome, 'passed');
    const lint = await client.callTool({ name: 'lint', arguments: { source: saxpy.correct } });
    assert.equal(lint.structuredContent.outcome, 'clean', 'lint does not count as an evaluation');
    const refused = await client.callTool({ name: 'submit', arguments: { source: saxpy.correct } });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /budget exhausted \(evaluations: 3 of 3 used\)/);
    assert.match(text(refused), /best kernel so far \(passed/);
    const later = await client.callTool({ name: 'lint', arguments: { source: saxpy.correct } });
    assert.match(text(later), /has ended \(budget:evaluations\)/);

    // Two more sessions at once, one opening its attempt with the tool.
    const [b, c] = await Promise.all([httpClient(server.url, auth, 'agent-b'), httpClient(server.url, auth, 'agent-c')]);
    await assert.rejects(b.client.callTool({ name: 'profile', arguments: { source: 'x' } }), (e) => e instanceof McpError && e.code === -32602);
    const [ob, oc] = await Promise.all([
      b.client.callTool({ name: 'start_attempt', arguments: { task: 'aten/add' } }),
      c.client.callTool({ name: 'start_attempt', arguments: { task: 'blas/saxpy' } }),
    ]);
    assert.equal(ob.isError, false);
    assert.equal(oc.structuredContent.attempt.sample, 1, 'the second attempt on blas/saxpy in this run');
    const [vb, vc] = await Promise.all([
      b.client.callTool({ name: 'evaluate', arguments: { source: saxpy.correct, correctness_only: true } }),
      c.client.callTool({ name: 'submit', arguments: { source: saxpy.correct } }),
    ]);
    assert.equal(vb.structuredContent.correct, false, 'a saxpy kernel does not define aten/add\'s entry point');
    assert.equal(vc.structuredContent.attempt.status, 'solved');

    // DELETE ends b's session; its attempt ends with it. The id is then unknown.
    const bSession = b.transport.sessionId;
    await b.transport.terminateSession();
    const gone = await post(server.url, JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }), { 'mcp-session-id': bSession });
    assert.equal(gone.status, 404);
    await client.close();
    await c.client.close();
  } finally {
    const { code } = await server.stop();
    assert.equal(code, 0, server.log());
  }

  const attempts = exportTable(store, 'mcp-http-test', 'attempts');
  const byKey = new Map(attempts.map((a) => [`${a.task}#${a.sample}`, a]));
  assert.equal(attempts.length, 3);
  const a = byKey.get('blas/saxpy#0');
  // The budget ended it; its best kernel evaluated was correct (as the loop's policies count it).
  assert.equal(a.stop_reason, 'budget:evaluations');
  assert.equal(a.status, 'solved');
  assert.equal(a.result.submitted, false);
  assert.equal(byKey.get('blas/saxpy#1').status, 'solved');
  assert.equal(byKey.get('aten/add#0').stop_reason, 'session-ended');
  assert.equal(byKey.get('aten/add#0').status, 'failed');
  const calls = exportTable(store, 'mcp-http-test', 'tool_calls').filter((t) => t.attempt_id === a.id);
  assert.deepEqual(calls.map((t) => [t.tool, t.outcome]).filter(([tool]) => tool !== 'attempt_status'),
    [['evaluate', 'wrong-result'], ['evaluate', 'passed'], ['evaluate', thirdOutcome], ['lint', 'clean'], ['submit', 'budget']]);
  const runs = exportTable(store, 'mcp-http-test', 'runs');
  assert.equal(runs[0].model, 'http-test-agent');
});

test('the HTTP transport refuses what it must, with the protocol\'s errors', async () => {
  const dir = tempDir('http-raw');
  const server = await startHttpServer(['--store', path.join(dir, 'runs.db'), '--tasks', 'blas/saxpy', '--token-env', 'KGB_TEST_TOKEN',
    '--request-timeout', '1', '--allow-origin', 'https://trusted.example'], { KGB_TEST_TOKEN: token });
  try {
    const url = server.url;
    const base = url.replace(/\/mcp$/, '');
    // Slow senders are cut off at the request deadline, and never block anyone else.
    const slow = net.connect(server.port, '127.0.0.1');
    slow.write('POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Len');
    const slowClosed = new Promise((resolve) => slow.on('close', resolve));

    assert.equal((await fetch(`${base}/health`)).status, 200);
    assert.equal((await fetch(`${base}/other`, { headers: auth })).status, 404);
    const unauthorized = await post(url, initialize(), { Authorization: '' });
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get('www-authenticate'), 'Bearer realm="kgb"');

    // Browser origins: loopback and listed ones pass; anything else is DNS rebinding.
    assert.equal((await post(url, initialize(), { origin: 'http://evil.example' })).status, 403);
    assert.equal((await post(url, initialize(), { origin: 'http://localhost.evil.example' })).status, 403);
    const local = await post(url, initialize(), { origin: 'http://localhost:5173' });
    assert.equal(local.status, 200);
    assert.equal((await post(url, initialize(), { origin: 'https://trusted.example' })).status, 200);

    // Malformed requests.
    const garbage = await post(url, '{"jsonrpc": "2.0", "id": 1, "method":');
    assert.equal(garbage.status, 400);
    assert.equal(garbage.body.error.code, -32700);
    const batch = await post(url, `[${initialize()}]`);
    assert.equal(batch.status, 400);
    assert.equal(batch.body.error.code, -32600);
    const noSession = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    assert.equal(noSession.status, 400);
    assert.equal(noSession.body.id, 2);
    const unknownSession = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }), { 'mcp-session-id': 'nope' });
    assert.equal(unknownSession.status, 404);
    assert.equal((await post(url, initialize(), { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await post(url, initialize(), { accept: 'text/html' })).status, 406);
    assert.equal((await post(url, initialize(), { 'mcp-protocol-version': '1900-01-01' })).status, 400);
    const get = await fetch(url, { headers: { ...auth, accept: 'text/event-stream' } });
    assert.equal(get.status, 405);
    assert.equal((await fetch(url, { method: 'DELETE', headers: auth })).status, 400);
    // A body over the limit (4 MiB) is refused once its length is known, before it is read.
    const huge = await new Promise((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(`POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
                     `Content-Length: ${5 << 20}\r\n\r\n{"jsonrpc":"2.0","id":4,`);
      });
      let reply = '';
      socket.on('data', (d) => { reply += d; });
      socket.on('close', () => resolve(reply));
      socket.on('error', reject);
    });
    assert.match(huge, /^HTTP\/1\.1 413 /);
    const unknownTask = await post(`${url}?task=aten%2Fsoftmax`, initialize(7));
    assert.equal(unknownTask.body.error.code, -32602);
    assert.equal(unknownTask.headers.get('mcp-session-id'), null, 'a failed initialize leaves no session');

    // A session: initialize, then requests with its id; a notification gets 202.
    const init = await post(url, initialize(5));
    const sid = init.headers.get('mcp-session-id');
    assert.match(sid, /^[0-9a-f]{64}$/);
    const h = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' };
    const note = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth, ...h },
                                    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    assert.equal(note.status, 202);
    assert.equal((await post(url, initialize(6), h)).status, 400, 'initialize on a live session');
    const list = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }), h);
    assert.equal(list.status, 200);
    assert.ok(list.body.result.tools.length >= 8);

    await slowClosed;  // the 1 s request deadline closed it while the rest went on
  } finally {
    const { code } = await server.stop();
    assert.equal(code, 0, server.log());
  }
});

test('kill -9 in the middle of an evaluation loses nothing recorded; a new server continues the run', async () => {
  const dir = tempDir('http-kill');
  const store = path.join(dir, 'runs.db');
  // No timing: this test is about the records, not about a timed loop on a busy host.
  const args = ['--store', store, '--run', 'killed', '--tasks', 'blas/saxpy', '--no-time', ...fastEval];
  const first = await startHttpServer(args);
  let second;
  try {
    const { client } = await httpClient(`${first.url}?task=blas/saxpy`);
    const done = await client.callTool({ name: 'evaluate', arguments: { source: saxpy.correct, correctness_only: true } });
    assert.equal(done.structuredContent.outcome, 'passed');
    const pending = client.callTool({ name: 'evaluate', arguments: { source: saxpy.slow } }, undefined, { timeout: 5000 })
      .catch((e) => e);
    await new Promise((r) => setTimeout(r, 1500));
    await first.stop('SIGKILL');
    assert.ok((await pending) instanceof Error, 'the client sees the connection die');
    await client.close().catch(() => {});

    second = await startHttpServer(args);
    const { client: again } = await httpClient(`${second.url}?task=blas/saxpy`);
    const submitted = await again.callTool({ name: 'submit', arguments: { source: saxpy.correct } });
    assert.equal(submitted.structuredContent.attempt.status, 'solved', text(submitted));
    await again.close();
    assert.deepEqual(await second.stop(), { code: 0, signal: null }, second.log());
  } finally {
    // A failed assertion must not leave a server behind (the test process would wait for it).
    await first.stop('SIGKILL');
    if (second) await second.stop('SIGKILL');
  }

  const attempts = exportTable(store, 'killed', 'attempts');
  assert.deepEqual(attempts.map((a) => [a.sample, a.status]), [[0, 'running'], [1, 'solved']],
    'the killed session\'s attempt stays unfinished; the new one is sample 1');
  const calls = exportTable(store, 'killed', 'tool_calls').filter((c) => c.attempt_id === attempts[0].id);
  assert.deepEqual(calls.map((c) => [c.tool, c.status, c.outcome]),
    [['evaluate', 'done', 'passed'], ['evaluate', 'interrupted', '']]);
  assert.equal(exportTable(store, 'killed', 'runs')[0].sessions, 2);
});
