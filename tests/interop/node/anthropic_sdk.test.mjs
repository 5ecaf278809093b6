// The official Anthropic Node SDK as a client of `kgb oracle-server`:
// messages (whole and streamed with the SDK's MessageStream), tool use (any,
// a named tool, streamed input_json deltas, and the SDK's beta tool runner
// looping to a passing submit), max_tokens, stop sequences, count_tokens,
// models, error classes in Anthropic's shape, and retries on injected 429/500.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';

import { agentToolNames, firstRejection, judged, kernelPrompt, sourceSchema, startOracle, stop } from './support.mjs';

let oracle, faulty, client;

before(async () => {
  oracle = await startOracle(['--compile-error-attempts', '1', '--wrong-result-attempts', '1', '--reasoning']);
  client = new Anthropic({ apiKey: 'not-needed', baseURL: oracle.origin, maxRetries: 0, timeout: 60000 });
});
after(() => { stop(oracle); for (const f of faulty ?? []) stop(f); });

const user = (content) => [{ role: 'user', content }];
const tools = agentToolNames.map((name) => ({ name, description: `the ${name} tool`, input_schema: sourceSchema }));
const textOf = (message) => message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');

test('messages: a kernel prompt gets thinking, prose and one fenced block, with usage', async () => {
  const message = await client.messages.create({ model: 'oracle', max_tokens: 8192, system: 'be brief', messages: user(kernelPrompt()) });
  assert.equal(message.type, 'message');
  assert.equal(message.role, 'assistant');
  assert.equal(message.stop_reason, 'end_turn');
  assert.equal(message.content[0].type, 'thinking');
  assert.match(textOf(message), /```cpp\n[\s\S]*kgb_validate_arguments/);
  assert.ok(message.usage.input_tokens > 0 && message.usage.output_tokens > 100);
});

test('streaming: the MessageStream assembles the same message from the events', async () => {
  const whole = await client.messages.create({ model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()) });
  const stream = client.messages.stream({ model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()) });
  let text = '', thinking = '';
  stream.on('text', (delta) => { text += delta; });
  stream.on('thinking', (delta) => { thinking += delta; });
  const final = await stream.finalMessage();
  assert.equal(text, textOf(whole));
  assert.equal(textOf(final), textOf(whole));
  assert.equal(thinking, whole.content[0].thinking);
  assert.equal(final.usage.output_tokens, whole.usage.output_tokens);
});

test('tool use: any, a named tool, and streamed input', async () => {
  const any = await client.messages.create({ model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()), tools, tool_choice: { type: 'any' } });
  assert.equal(any.stop_reason, 'tool_use');
  const use = any.content.find((b) => b.type === 'tool_use');
  assert.equal(use.name, 'lint');
  assert.match(use.id, /^toolu_/);
  assert.match(use.input.source, /kgb_blas_saxpy/);

  const named = await client.messages.create({
    model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()), tools, tool_choice: { type: 'tool', name: 'submit' } });
  assert.equal(named.content.find((b) => b.type === 'tool_use').name, 'submit');

  const streamed = await client.messages.stream({ model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()), tools }).finalMessage();
  assert.deepEqual(streamed.content.find((b) => b.type === 'tool_use').input, use.input);
});

test("the SDK's tool runner loops through lint, compile, run, profile and submit, fixing each failure", async () => {
  const calls = [];
  const runnable = agentToolNames.map((name) => betaTool({
    name, description: `the ${name} tool`, inputSchema: sourceSchema,
    run: async ({ source }) => {
      const result = judged(name, source);
      calls.push(`${name}:${result.match(/outcome: (.*)/)[1]}`);
      return result;
    },
  }));
  const runner = client.beta.messages.toolRunner({
    model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()), tools: runnable, thread: false, max_iterations: 12 });
  const final = await runner.runUntilDone();
  assert.match(textOf(final), /passed every check and is submitted/);
  assert.deepEqual(calls, ['lint:parse-errors', 'lint:clean', 'compile:compiled', 'run:wrong-result', 'run:passed',
                           'profile:passed', 'submit:passed']);
});

test('max_tokens ends with stop_reason max_tokens, stop sequences with stop_sequence', async () => {
  const cut = await client.messages.create({ model: 'oracle', max_tokens: 10, messages: user(kernelPrompt()) });
  assert.equal(cut.stop_reason, 'max_tokens');
  assert.equal(cut.usage.output_tokens, 10);

  const cutTool = await client.messages.stream({ model: 'oracle', max_tokens: 60, messages: user(kernelPrompt()), tools }).finalMessage();
  assert.equal(cutTool.stop_reason, 'max_tokens');

  const stopped = await client.messages.create({ model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()), stop_sequences: ['```'] });
  assert.equal(stopped.stop_reason, 'stop_sequence');
  assert.equal(stopped.stop_sequence, '```');
  assert.ok(!textOf(stopped).includes('```'));
});

test('count_tokens and models', async () => {
  const count = await client.messages.countTokens({ model: 'oracle', system: 'abcdefgh', messages: user('abcd') });
  assert.equal(count.input_tokens, 10);
  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), ['oracle']);
  assert.equal(models.data[0].type, 'model');
  assert.equal((await client.models.retrieve('oracle')).id, 'oracle');
});

test('errors arrive as the SDK classes with the Anthropic error body', async () => {
  await assert.rejects(client.models.retrieve('claude-nothing'), (e) =>
    e instanceof Anthropic.NotFoundError && e.status === 404 && e.error.type === 'error' && e.error.error.type === 'not_found_error');
  await assert.rejects(client.messages.create({ model: 'oracle', messages: user('hi') }), (e) =>
    e instanceof Anthropic.BadRequestError && e.error.error.message === 'max_tokens: Field required');
  await assert.rejects(client.messages.create({ model: 'oracle', max_tokens: 5, messages: [{ role: 'system', content: 'x' }] }), (e) =>
    e instanceof Anthropic.BadRequestError && e.error.error.type === 'invalid_request_error');
});

test('retries: injected 429s and 500s are retried by the SDK; mid-stream errors surface as the SDK error', async () => {
  const limited = await startOracle(['--fail-429', '0.6', '--retry-after-ms', '5', '--seed', '4']);
  const failing = await startOracle(['--fail-500', '0.5', '--seed', '4']);
  const broken = await startOracle(['--fail-mid-stream', '1']);
  faulty = [limited, failing, broken];
  for (const [server, count, kind] of [[limited, 10, 'injected_429'], [failing, 4, 'injected_500']]) {
    const patient = new Anthropic({ apiKey: 'x', baseURL: server.origin, maxRetries: 20, timeout: 30000 });
    const answers = await Promise.all(Array.from({ length: count }, () =>
      patient.messages.create({ model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()) })));
    for (const a of answers) assert.match(textOf(a), /```cpp/);
    const stats = await (await fetch(`${server.origin}/kgb/stats`)).json();
    assert.equal(stats.answered, count);
    assert.ok(stats[kind] > 0, JSON.stringify(stats));
  }
  const impatient = (server) => new Anthropic({ apiKey: 'x', baseURL: server.origin, maxRetries: 0 });
  const once = (server) => firstRejection((i) => impatient(server).messages.create({ model: 'oracle', max_tokens: 100, messages: user(`${kernelPrompt()}\n#${i}`) }));
  const limitedError = await once(limited);
  assert.ok(limitedError instanceof Anthropic.RateLimitError, String(limitedError));
  assert.equal(limitedError.error.error.type, 'rate_limit_error');
  const failure = await once(failing);
  assert.ok(failure instanceof Anthropic.InternalServerError && failure.error.error.type === 'api_error', String(failure));

  await assert.rejects(impatient(broken).messages.stream({ model: 'oracle', max_tokens: 8192, messages: user(kernelPrompt()) }).finalMessage(),
    (e) => /Overloaded \(injected by the oracle\)/.test(e.message));
});
