import { fileURLToPath } from 'node:url';
import { readPackageInfo } from '../../services/kit/index.ts';

/** Name and version of this package, for health routes and the startup line. */
export const SERVICE = readPackageInfo(fileURLToPath(new URL('../..', import.meta.url)));
