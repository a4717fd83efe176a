/** parseConfig: agent.yaml text → resolved configuration + issues. Never throws. */
import { errorMessage } from '../util/errors.js';
import { capIssues, exceedsConfigLimit, tooLargeIssue } from './limits.js';
import { resolveEntries } from './resolve.js';
import { defaultConfig } from './tree.js';
import type { ConfigResult } from './types.js';
import { readYamlEntries } from './yamlSource.js';

export function parseConfig(text: string, sourceName?: string): ConfigResult {
  try {
    const tooLarge = exceedsConfigLimit(text);
    if (tooLarge !== undefined) return { config: defaultConfig(), issues: [tooLargeIssue(tooLarge, sourceName)] };
    const read = readYamlEntries(text, sourceName);
    const resolved = resolveEntries(defaultConfig(), read.entries, { source: sourceName, base: 'defaults' });
    return { config: resolved.config, issues: capIssues([...read.issues, ...resolved.issues], sourceName) };
  } catch (err) {
    // Defensive: nothing above is expected to throw, but a config problem must never take the engine down.
    return {
      config: defaultConfig(),
      issues: [
        {
          severity: 'error',
          key: '',
          message: `could not read the configuration: ${errorMessage(err)}; defaults are used`,
          ...(sourceName !== undefined ? { source: sourceName } : {}),
        },
      ],
    };
  }
}
