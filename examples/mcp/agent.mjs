#!/usr/bin/env node
// A small external agent for `kgb mcp-server`: the official MCP SDK as its
// client, any OpenAI-compatible chat completions server as its model (the
// offline `kgb oracle-server` in the tests). It reads the task prompt from the
// server (the solve_task prompt), asks the model for a kernel, evaluates it
// with the server's tools, feeds the result back until the kernel is correct
// or the turns run out, submits, and prints one JSON line with its token usage
// in the shape Claude Code's `--output-format json` uses, so that a sweep can
// import it with `kgb mcp-usage`.
//
//   node agent.mjs --mcp-config mcp.json --model-url http://127.0.0.1:8765/v1 [--model oracle]
//                  [--api-key-env VAR] [--task TASK] [--max-turns 6] [--report-usage]
//   node agent.mjs --mcp-command kgb --mcp-arg mcp-server --mcp-arg --task=blas/saxpy ...   (stdio)
//
// mcp.json holds {"mcpServers": {"<name>": {"type": "http", "url": ..., "headers": {...}}}} or a
// stdio entry {"command": ..., "args": [...]} (the first server is used).
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

function parseArgs(argv) {
  const opts = { model: 'oracle', maxTurns: 6, mcpArgs: [], reportUsage: false };
  for (let i = 0; i < argv.length; ++i) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case '--mcp-config': opts.mcpConfig = value(); break;
      case '--mcp-command': opts.mcpCommand = value(); break;
      case '--mcp-arg': opts.mcpArgs.push(value()); break;
      case '--model-url': opts.modelUrl = value().replace(/\/+$/, ''); break;
      case '--model': opts.model = value(); break;
      case '--api-key-env': opts.apiKeyEnv = value(); break;
      case '--task': opts.task = value(); break;
      case '--max-turns': opts.maxTurns = Number(value()); break;
      case '--prompt-file': opts.promptFile = value(); break;
      case '--report-usage': opts.reportUsage = true; break;
      default: throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  if (!opts.modelUrl) throw new Error('--model-url is required');
  if (!opts.mcpConfig && !opts.mcpCommand) throw new Error('--mcp-config or --mcp-command is required');
  return opts;
}

function transportFor(opts) {
  if (opts.mcpCommand) return new StdioClientTransport({ command: opts.mcpCommand, args: opts.mcpArgs, stderr: 'inherit' });
  const config = JSON.parse(readFileSync(opts.mcpConfig, 'utf8'));
  const [server] = Object.values(config.mcpServers ?? {});
  if (!server) throw new Error(`${opts.mcpConfig}: no server under mcpServers`);
  if (server.command) return new StdioClientTransport({ command: server.command, args: server.args ?? [], env: { ...process.env, ...(server.env ?? {}) }, stderr: 'inherit' });
  return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } });
}

// The first fenced code block of a reply.
function extractCode(text) {
  const match = /```[^\n`]*\n([\s\S]*?)```/.exec(text);
  return match ? match[1] : null;
}

async function chat(opts, session, messages) {
  const headers = { 'content-type': 'application/json', 'x-kgb-session': session };
  if (opts.apiKeyEnv && process.env[opts.apiKeyEnv]) headers.authorization = `Bearer ${process.env[opts.apiKeyEnv]}`;
  for (let attempt = 1; ; ++attempt) {
    const response = await fetch(`${opts.modelUrl}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: opts.model, messages }),
      signal: AbortSignal.timeout(300_000),
    });
    if (response.ok) return response.json();
    if (attempt >= 4 || (response.status !== 429 && response.status < 500))
      throw new Error(`model server: HTTP ${response.status}: ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const started = Date.now();
  const client = new Client({ name: 'kgb-example-agent', version: '1.0.0' });
  const transport = transportFor(opts);
  await client.connect(transport);
  const toolCalls = [];
  // Evaluations may take minutes: the server's progress notifications keep the request alive.
  const call = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000, resetTimeoutOnProgress: true, onprogress: () => {} });
    toolCalls.push({ tool: name, outcome: result.structuredContent?.outcome ?? (result.isError ? 'error' : 'ok') });
    return result;
  };

  // The session may already be on a task (the server's --task, the URL's ?task=).
  let status = await call('attempt_status');
  if (status.isError) {
    if (!opts.task) throw new Error('the session has no attempt and no --task was given');
    const opened = await call('start_attempt', { task: opts.task });
    if (opened.isError) throw new Error(opened.content[0].text);
    status = await call('attempt_status');
  }
  const task = status.structuredContent.attempt.task;
  const prompt = await client.getPrompt({ name: 'solve_task', arguments: { task } });
  const messages = [{ role: 'user', content: prompt.messages[0].content.text }];
  if (opts.promptFile) messages[0].content = `${readFileSync(opts.promptFile, 'utf8')}\n\n${messages[0].content}`;

  const session = randomUUID();
  const usage = { input_tokens: 0, output_tokens: 0 };
  let estimated = false;
  let solved = false, submitted = null, turns = 0;
  while (turns < opts.maxTurns && !solved) {
    ++turns;
    const answer = await chat(opts, session, messages);
    usage.input_tokens += answer.usage?.prompt_tokens ?? 0;
    usage.output_tokens += answer.usage?.completion_tokens ?? 0;
    estimated ||= Boolean(answer.usage?.estimated);
    const reply = answer.choices?.[0]?.message?.content ?? '';
    messages.push({ role: 'assistant', content: reply });
    const code = extractCode(reply);
    if (!code) {
      messages.push({ role: 'user', content: 'Your reply has no fenced code block. Answer with the complete source file.' });
      continue;
    }
    const verdict = await call('evaluate', { source: code });
    if (verdict.structuredContent?.correct) {
      submitted = await call('submit', { source: code });
      solved = Boolean(submitted.structuredContent?.correct);
      if (!solved) messages.push({ role: 'user', content: submitted.content[0].text });
    } else {
      messages.push({ role: 'user', content: `The kernel failed:\n${verdict.content[0].text}\nFix it and answer with the complete file.` });
    }
  }
  if (opts.reportUsage) await call('report_usage', { ...usage, model: opts.model });
  if (transport.terminateSession) await transport.terminateSession().catch(() => {});
  await client.close();

  // One line the sweep imports with `kgb mcp-usage` (the shape of Claude Code's result).
  process.stdout.write(`${JSON.stringify({
    type: 'result', subtype: solved ? 'success' : 'error_max_turns', task, solved, num_turns: turns,
    tool_calls: toolCalls, duration_ms: Date.now() - started, model: opts.model, usage: { ...usage, estimated },
  })}\n`);
}

main().catch((error) => {
  process.stderr.write(`agent: ${error.stack ?? error}\n`);
  process.exit(1);
});
