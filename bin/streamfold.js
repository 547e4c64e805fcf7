#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx: no build step, never a stale dist/.
import { register } from 'tsx/esm/api';

register();
await import('../engine/cli/main.ts');
