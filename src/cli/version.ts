/**
 * The version of `agent-memory`: package.json's, read when the bundle is built (esbuild inlines
 * the one field of the JSON import), so dist/cli.js needs no package.json next to it.
 */
import { version } from '../../package.json';

export const VERSION: string = version;
