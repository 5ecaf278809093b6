// Runs one interop test file with node's test runner, after checking that
// node is recent enough and the pinned npm packages are installed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const major = Number(process.versions.node.split('.')[0]);
if (major < 20) {
  console.error(`the interop tests need node 20 or later; this is node ${process.versions.node}`);
  process.exit(1);
}
for (const pkg of ['openai', '@anthropic-ai/sdk', '@dwmkerr/mock-llm', '@musistudio/claude-code-router'])
  if (!existsSync(path.join(here, 'node_modules', pkg, 'package.json'))) {
    console.error(`npm package ${pkg} is not installed: run \`npm ci\` in ${here} (scripts/setup.sh does)`);
    process.exit(1);
  }
const file = process.argv[2];
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', path.join(here, file)], { stdio: 'inherit', cwd: here });
process.exit(result.status ?? 1);
