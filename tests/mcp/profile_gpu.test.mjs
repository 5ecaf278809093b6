// The profile tool, offered where the platform has a profiler (CUDA: Nsight
// Compute). Needs an available CUDA platform; skips cleanly on hosts without one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { Client, StdioClientTransport, kgb, root, run, tempDir, text, fastEval } from './support.mjs';

const platform = process.env.KGB_MCP_CUDA_PLATFORM ?? 'cuda-sm90';
const platforms = JSON.parse(run(['platforms', '--json']).stdout);
const cuda = platforms.find((p) => p.name === platform);
// kgb profile looks for ncu on PATH, as this does.
const ncu = spawnSync('ncu', ['--version']).status === 0;

test(`profile on ${platform} over stdio`, { skip: !cuda?.available && `${platform} is not available here: ${cuda?.reason}` }, async () => {
  const dir = tempDir('profile');
  const transport = new StdioClientTransport({
    command: kgb,
    args: ['mcp-server', '--store', path.join(dir, 'runs.db'), '--platform', platform, '--task', 'blas/saxpy', ...fastEval],
    stderr: 'inherit',
  });
  const client = new Client({ name: 'profile-test', version: '1' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'profile'), 'a CUDA platform offers profile');
  const source = readFileSync(path.join(root, 'benchmark/tasks/blas/saxpy/solutions/cuda.cu'), 'utf8');
  const result = await client.callTool({ name: 'profile', arguments: { source } }, undefined, { timeout: 600_000 });
  if (ncu) {
    assert.equal(result.structuredContent.outcome, 'profiled', text(result));
    assert.ok(result.structuredContent.profile.kernels.length > 0);
  } else {
    assert.equal(result.isError, true);
    assert.match(text(result), /Nsight Compute \('ncu'\) not found on PATH/);
  }
  const status = await client.callTool({ name: 'attempt_status', arguments: {} });
  assert.equal(status.structuredContent.attempt.evaluations.used, 1, 'profile counts as an evaluation');
  await client.close();
});
