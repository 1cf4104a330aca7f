/**
 * Splits README.md into what `npm run readme:check` (scripts/readme-check.mjs) does with each
 * fenced block, in order:
 * - `sh`/`bash` blocks run in one shell, except:
 *   - a block whose commands are all `[VAR=value …] npm start` (a second terminal in the README's
 *     words): the checker (re)starts the system in the background with those variables;
 *   - a block right after `<!-- readme-check: skip (reason) -->`: not run (the reason is required);
 * - a `js` block whose first line is `// <path>` with a path under `.data/` or `/tmp/`: saved there
 *   before the next shell block runs (the README says to save it there);
 * - anything else (`json`, `http`, output) is shown text only.
 *
 * @param {string} markdown the README's text
 * @returns {Array<{ line: number, lang: string, code: string, kind: 'shell'|'start'|'skip'|'file'|'text', env?: Record<string,string>, path?: string, reason?: string }>}
 *   `line` is the 1-based line of the opening fence
 * @throws Error naming the line of a skip marker without a reason or of an unclosed fence
 */
export function readmeBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let skipReason;
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- readme-check: skip(?: \((.+)\))? -->$/.exec(lines[i]);
    if (marker) {
      if (!marker[1]) throw new Error(`README.md:${i + 1}: a skip marker needs a reason`);
      skipReason = marker[1];
      continue;
    }
    const fence = /^```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    if (i >= lines.length) throw new Error(`README.md:${start + 1}: unclosed code fence`);
    const block = { line: start + 1, lang: fence[1], code: body.join('\n') };
    blocks.push(classify(block, skipReason));
    skipReason = undefined;
  }
  return blocks;
}

/** The `[VAR=value …] npm start` form, with its variables; undefined for any other command. */
function startCommand(code) {
  const commands = code
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'));
  if (commands.length !== 1) return undefined;
  const m = /^((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)npm start$/.exec(commands[0]);
  if (!m) return undefined;
  return Object.fromEntries(
    m[1]
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((a) => a.split(/=(.*)/s).slice(0, 2)),
  );
}

function classify(block, skipReason) {
  if (skipReason !== undefined) return { ...block, kind: 'skip', reason: skipReason };
  if (block.lang === 'sh' || block.lang === 'bash') {
    const env = startCommand(block.code);
    return env ? { ...block, kind: 'start', env } : { ...block, kind: 'shell' };
  }
  const path = /^\/\/ ((?:\.data|\/tmp)\/[\w./-]+\.m?js)\b/.exec(block.code)?.[1];
  if (block.lang === 'js' && path) return { ...block, kind: 'file', path };
  return { ...block, kind: 'text' };
}
