#!/usr/bin/env bun
/**
 * The single `rowsmith` executable (`npm run build` compiles it to dist/rowsmith): `rowsmith serve`
 * runs the server, every other command is the admin CLI (`rowsmith key create ...`, `rowsmith backup <dir>`).
 */
import { argv } from 'node:process';

/** People type the plural (`rowsmith keys list`); the CLI's groups are singular. */
const PLURAL_GROUPS: Record<string, string> = { keys: 'key', orgs: 'org', projects: 'project' };

const command = argv[2];
if (command === 'serve') {
  await import('./main');
} else {
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    console.log('rowsmith serve runs the server, configured by the environment (PORT, DATA_DIR, ... as in the README).\nEvery other command is the admin CLI:\n');
    if (command === 'help') argv[2] = '--help';
  }
  if (command !== undefined && PLURAL_GROUPS[command]) argv[2] = PLURAL_GROUPS[command];
  await import('./cli/main');
}
