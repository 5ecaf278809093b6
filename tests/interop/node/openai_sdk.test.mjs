// The official OpenAI Node SDK as a client of `kgb oracle-server`: chat
// completions (whole, streamed, with the SDK's stream helper), tool calls
// (required, named, schema-made arguments, and the SDK's runTools loop driving
// kgb's real harness), max_tokens, stop, n, the Responses API, models, error
// classes, and retries on injected 429/500.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';

import { agentToolNames, firstRejection, bundledSolution, kernelPrompt, runKgb, sourceSchema, startOracle, stop } from './support.mjs';

let oracle, faulty, client;

before(async () => {
  oracle = await startOracle(['--compile-error-attempts', '1', '--wrong-result-attempts', '1', '--chunk-chars', '48']);
  client = new OpenAI({ apiKey: 'not-needed', baseURL: oracle.url, maxRetries: 0, timeout: 60000 });
});
after(() => { stop(oracle); for (const f of faulty ?? []) stop(f); });

const user = (content) => [{ role: 'user', content }];
const tools = agentToolNames.map((name) => ({ type: 'function', function: { name, description: `the ${name} tool`, parameters: sourceSchema } }));

test('chat: a kernel prompt gets prose and one fenced block, usage estimated and reported', async () => {
  const answer = await client.chat.completions.create({ model: 'oracle', messages: user(kernelPrompt()) });
  assert.equal(answer.object, 'chat.completion');
  assert.equal(answer.choices[0].finish_reason, 'stop');
  const text = answer.choices[0].message.content;
  assert.match(text, /```cpp\n/);
  assert.match(text, /kgb_validate_arguments/);  // attempt 1 carries the compile error
  assert.ok(answer.usage.prompt_tokens > 0);
  assert.ok(answer.usage.completion_tokens > 100);
  assert.equal(answer.usage.total_tokens, answer.usage.prompt_tokens + answer.usage.completion_tokens);

  // The attempt follows the conversation: after two replies, the bundled solution.
  const third = await client.chat.completions.create({ model: 'oracle', messages: [
    ...user(kernelPrompt()), { role: 'assistant', content: 'v1' }, { role: 'user', content: 'does not compile' },
    { role: 'assistant', content: 'v2' }, { role: 'user', content: 'wrong result' }] });
  assert.ok(third.choices[0].message.content.includes(bundledSolution('blas/saxpy').trim()));
});

test('chat streaming: raw chunks and the SDK stream helper assemble the same answer, with usage', async () => {
  const whole = await client.chat.completions.create({ model: 'oracle', messages: user(kernelPrompt()) });
  const stream = await client.chat.completions.create({
    model: 'oracle', messages: user(kernelPrompt()), stream: true, stream_options: { include_usage: true } });
  let text = '', usage = null, chunks = 0, finish = null;
  for await (const chunk of stream) {
    chunks++;
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      text += choice.delta?.content ?? '';
      finish = choice.finish_reason ?? finish;
    }
  }
  assert.ok(chunks > 10);
  assert.equal(text, whole.choices[0].message.content);
  assert.equal(finish, 'stop');
  assert.equal(usage.completion_tokens, whole.usage.completion_tokens);

  const helper = client.chat.completions.stream({ model: 'oracle', messages: user(kernelPrompt()) });
  let deltas = '';
  helper.on('content', (delta) => { deltas += delta; });
  const final = await helper.finalChatCompletion();
  assert.equal(final.choices[0].message.content, whole.choices[0].message.content);
  assert.equal(deltas, whole.choices[0].message.content);
});

test('tools: required, named, streamed, and arguments made from an unknown schema', async () => {
  const first = await client.chat.completions.create({ model: 'oracle', messages: user(kernelPrompt()), tools, tool_choice: 'required' });
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  const call = first.choices[0].message.tool_calls[0];
  assert.equal(call.type, 'function');
  assert.equal(call.function.name, 'lint');
  assert.match(JSON.parse(call.function.arguments).source, /kgb_blas_saxpy/);

  const named = await client.chat.completions.create({
    model: 'oracle', messages: user(kernelPrompt()), tools, tool_choice: { type: 'function', function: { name: 'submit' } } });
  assert.equal(named.choices[0].message.tool_calls[0].function.name, 'submit');

  const streamed = client.chat.completions.stream({ model: 'oracle', messages: user(kernelPrompt()), tools });
  const final = await streamed.finalChatCompletion();
  assert.deepEqual(final.choices[0].message.tool_calls[0].function, call.function);

  const weather = await client.chat.completions.create({
    model: 'oracle', messages: user('What is the weather in Paris?'), tool_choice: 'required',
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: {
      type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city', 'days'] } } }] });
  assert.deepEqual(JSON.parse(weather.choices[0].message.tool_calls[0].function.arguments), { city: 'oracle', days: 1 });
});

test("runTools: the SDK's own tool loop drives the oracle through kgb's real harness to a passing submit", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kgb-interop-tools-'));
  const calls = [];
  // compile, run, profile and submit are `kgb eval` of the source; lint is left to compile.
  const evaluate = (tool) => async ({ source }) => {
    const file = path.join(dir, `draft-${calls.length}.cpp`);
    writeFileSync(file, source);
    const out = await runKgb(['eval', 'blas/saxpy', '--platform', 'cpu-x86_64', '--kernel', file, '--no-time', '--no-lint', '--json', '--seeds', '1']);
    const verdict = JSON.parse(out.stdout);
    let outcome = verdict.outcome;
    if (tool === 'compile' && outcome !== 'compile-error') outcome = 'compiled';
    calls.push(`${tool}:${outcome}`);
    return `tool: ${tool}\noutcome: ${outcome}\nsummary: ${verdict.summary}`;
  };
  const runnable = agentToolNames.map((name) => ({ type: 'function', function: {
    name, description: `the ${name} tool`, parameters: sourceSchema, parse: JSON.parse,
    function: name === 'lint' ? async () => { calls.push('lint:clean'); return 'tool: lint\noutcome: clean'; } : evaluate(name) } }));
  const runner = client.chat.completions.runTools({ model: 'oracle', messages: user(kernelPrompt()), tools: runnable });
  const content = await runner.finalContent();
  assert.match(content, /passed every check and is submitted/);
  assert.deepEqual(calls, ['lint:clean', 'compile:compile-error', 'compile:compiled', 'run:wrong-result', 'run:passed',
                           'profile:passed', 'submit:passed']);
});

test('max_tokens cuts the answer and a tool call (finish_reason length); stop sequences; n choices', async () => {
  const cut = await client.chat.completions.create({ model: 'oracle', messages: user(kernelPrompt()), max_tokens: 10 });
  assert.equal(cut.choices[0].finish_reason, 'length');
  assert.equal(cut.usage.completion_tokens, 10);
  assert.ok(cut.choices[0].message.content.length <= 40);

  const cutCall = await client.chat.completions.create({ model: 'oracle', messages: user(kernelPrompt()), tools, max_tokens: 40 });
  assert.equal(cutCall.choices[0].finish_reason, 'length');
  assert.throws(() => JSON.parse(cutCall.choices[0].message.tool_calls[0].function.arguments), SyntaxError);

  const stopped = await client.chat.completions.create({ model: 'oracle', messages: user(kernelPrompt()), stop: ['```'] });
  assert.equal(stopped.choices[0].finish_reason, 'stop');
  assert.ok(!stopped.choices[0].message.content.includes('```'));

  const three = await client.chat.completions.create({ model: 'oracle', messages: user(kernelPrompt()), n: 3 });
  assert.deepEqual(three.choices.map((c) => c.index), [0, 1, 2]);
});

test('the Responses API: text, function calls, streaming events, max_output_tokens', async () => {
  const response = await client.responses.create({ model: 'oracle', instructions: 'be brief', input: kernelPrompt() });
  assert.equal(response.status, 'completed');
  assert.match(response.output_text, /```cpp/);
  assert.ok(response.usage.output_tokens > 0);

  const withTools = await client.responses.create({
    model: 'oracle', input: kernelPrompt(), tool_choice: 'required',
    tools: agentToolNames.map((name) => ({ type: 'function', name, parameters: sourceSchema, strict: false })) });
  const call = withTools.output.find((item) => item.type === 'function_call');
  assert.equal(call.name, 'lint');
  assert.ok(JSON.parse(call.arguments).source.length > 100);

  const events = [];
  const stream = client.responses.stream({ model: 'oracle', input: kernelPrompt() });
  stream.on('event', (event) => events.push(event.type));
  const final = await stream.finalResponse();
  assert.equal(events[0], 'response.created');
  assert.equal(events.at(-1), 'response.completed');
  assert.ok(events.includes('response.output_text.delta'));
  assert.equal(final.output_text, response.output_text);

  const short = await client.responses.create({ model: 'oracle', input: kernelPrompt(), max_output_tokens: 16 });
  assert.equal(short.status, 'incomplete');
  assert.equal(short.incomplete_details.reason, 'max_output_tokens');
});

test('models and errors arrive as the SDK classes, with the server message', async () => {
  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), ['oracle']);
  assert.equal((await client.models.retrieve('oracle')).id, 'oracle');
  await assert.rejects(client.models.retrieve('gpt-nothing'), (e) =>
    e instanceof OpenAI.NotFoundError && e.status === 404 && e.code === 'model_not_found');
  await assert.rejects(client.chat.completions.create({ model: 'oracle', messages: 'not a list' }), (e) =>
    e instanceof OpenAI.BadRequestError && /messages/.test(e.message));
  await assert.rejects(client.chat.completions.create({ model: 'oracle', messages: user('x'), tool_choice: 'sometimes' }), (e) =>
    e instanceof OpenAI.BadRequestError && /tool_choice/.test(e.message));
});

test('retries: injected 429s (with retry-after) and 500s are retried by the SDK until it succeeds', async () => {
  const limited = await startOracle(['--fail-429', '0.6', '--retry-after-ms', '5', '--seed', '9']);
  const failing = await startOracle(['--fail-500', '0.5', '--seed', '9']);
  faulty = [limited, failing];
  for (const [server, count, kind] of [[limited, 10, 'injected_429'], [failing, 4, 'injected_500']]) {
    const patient = new OpenAI({ apiKey: 'x', baseURL: server.url, maxRetries: 20, timeout: 30000 });
    const answers = await Promise.all(Array.from({ length: count }, () =>
      patient.chat.completions.create({ model: 'oracle', messages: user(kernelPrompt()) })));
    for (const a of answers) assert.match(a.choices[0].message.content, /```cpp/);
    const stats = await (await fetch(`${server.origin}/kgb/stats`)).json();
    assert.equal(stats.answered, count);
    assert.ok(stats[kind] > 0, JSON.stringify(stats));
  }
  const impatient = (server) => new OpenAI({ apiKey: 'x', baseURL: server.url, maxRetries: 0 });
  const once = (server) => firstRejection((i) => impatient(server).chat.completions.create({ model: 'oracle', messages: user(`${kernelPrompt()}\n#${i}`) }));
  const limitedError = await once(limited);
  assert.ok(limitedError instanceof OpenAI.RateLimitError, String(limitedError));
  assert.equal(limitedError.headers.get('retry-after-ms'), '5');
  assert.ok((await once(failing)) instanceof OpenAI.InternalServerError);
});
