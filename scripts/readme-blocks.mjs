/**
 * Splits README.md into what `npm run readme:check` (scripts/readme-check.mjs) does with each
 * fenced block, in order:
 * - `sh`/`bash` blocks run in one shell, except:
 *   - a block whose commands are all `[VAR=value …] npm start` (a second terminal in the README's
 *     words): the checker (re)starts the system in the background with those variables;
 *   - a block right after `<!-- readme-check: skip (reason) -->`: not run (the reason is required);
 * - a `js` block whose first line is `// <path>` with a path under `.data/` or `/tmp/`: saved there
 *   before the next shell block runs (the README says to save it there);
 * - a block right after `<!-- readme-check: output exact -->` or `<!-- readme-check: output like -->`
 *   shows what the shell block before it prints (its last lines): compared by `matchesShown`;
 * - anything else (`json`, `http`, unmarked output) is shown text only.
 *
 * Within a shell block, a run of `# ` comment lines right under a command (no blank line between)
 * shows what that command prints, compared `like` (a comment after a blank line, at the top of a
 * block or after a command on its own line is a remark). `steps` splits the block there: each step
 * is run on its own, so its output can be compared with what the README shows under it.
 *
 * @param {string} markdown the README's text
 * @returns {import('./readme-blocks.d.mts').ReadmeBlock[]} `line` is the 1-based line of the opening fence
 * @throws Error naming the line of a marker without a reason or mode, or of an unclosed fence
 */
export function readmeBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let skipReason;
  let outputMode;
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- readme-check: skip(?: \((.+)\))? -->$/.exec(lines[i]);
    if (marker) {
      if (!marker[1]) throw new Error(`README.md:${i + 1}: a skip marker needs a reason`);
      skipReason = marker[1];
      continue;
    }
    const output = /^<!-- readme-check: output(?: (\w+))? -->$/.exec(lines[i]);
    if (output) {
      if (output[1] !== 'exact' && output[1] !== 'like') throw new Error(`README.md:${i + 1}: an output marker says exact or like`);
      outputMode = output[1];
      continue;
    }
    const fence = /^```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    if (i >= lines.length) throw new Error(`README.md:${start + 1}: unclosed code fence`);
    const block = { line: start + 1, lang: fence[1], code: body.join('\n') };
    blocks.push(outputMode ? { ...block, kind: 'output', mode: outputMode } : classify(block, skipReason));
    skipReason = undefined;
    outputMode = undefined;
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
    return env ? { ...block, kind: 'start', env } : { ...block, kind: 'shell', steps: shellSteps(block.code) };
  }
  const path = /^\/\/ ((?:\.data|\/tmp)\/[\w./-]+\.m?js)\b/.exec(block.code)?.[1];
  if (block.lang === 'js' && path) return { ...block, kind: 'file', path };
  return { ...block, kind: 'text' };
}

/**
 * The steps of a shell block: its lines up to each run of `# ` lines right under a command, with
 * that run (without `# `) as `shown`; the last step has no `shown` unless the block ends with one.
 * @param {string} code
 * @returns {Array<{ code: string, shown?: string[] }>}
 */
export function shellSteps(code) {
  const steps = [];
  let current = [];
  let shown;
  const lines = code.split('\n');
  for (const [i, line] of lines.entries()) {
    const comment = /^# ?(.*)$/.exec(line);
    const previous = i > 0 ? lines[i - 1] : '';
    const underCommand = comment && (shown !== undefined || (previous.trim() !== '' && !previous.startsWith('#')));
    if (underCommand) {
      shown ??= [];
      shown.push(comment[1]);
      continue;
    }
    if (shown) {
      steps.push({ code: current.join('\n'), shown });
      current = [];
      shown = undefined;
    }
    current.push(line);
  }
  steps.push(shown ? { code: current.join('\n'), shown } : { code: current.join('\n') });
  return steps.filter((s) => s.code.trim() !== '' || s.shown);
}

/** An id of the API (`deb_` and 24 letters or digits). */
const ID = /\b([a-z]{2,5})_[A-Za-z0-9]{24}\b/g;
/** An RFC 3339 timestamp as the API writes them. */
const TIMESTAMP = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\b/g;

/** What a terminal shows of `text`: each line after its last carriage return (progress bars). */
export function onScreen(text) {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((l) => l.slice(l.lastIndexOf('\r') + 1).trimEnd());
}

/**
 * True when the last lines of `actual` (what a step printed) are `shown` (what the README shows).
 * `exact`: line for line, character for character. `like`: the same with runs of white space
 * (line breaks included: Node prints a long object over several lines) counted as one space, `…`
 * standing for any text, an id (`deb_` and 24 characters) for any id of that prefix, and an
 * RFC 3339 timestamp for any timestamp; the shown text must then start at the start of a line.
 * @param {string[]} shown
 * @param {string} actual
 * @param {'exact'|'like'} mode
 */
export function matchesShown(shown, actual, mode) {
  const got = onScreen(actual);
  while (got.length && got[got.length - 1] === '') got.pop();
  const want = shown.map((l) => l.trimEnd());
  while (want.length && want[want.length - 1] === '') want.pop();
  if (mode === 'exact') return got.length >= want.length && want.every((line, i) => line === got[got.length - want.length + i]);
  const pattern = likePattern(collapse(want.join(' ')));
  for (let k = 1; k <= got.length; k++) {
    if (pattern.test(collapse(got.slice(got.length - k).join(' ')))) return true;
  }
  return false;
}

const collapse = (text) => text.replace(/\s+/g, ' ').trim();

/** The `like` pattern of one shown line. */
function likePattern(line) {
  const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const parts = [];
  const wild = new RegExp(`${ID.source}|${TIMESTAMP.source}|…`, 'g');
  let last = 0;
  for (const m of line.matchAll(wild)) {
    parts.push(escape(line.slice(last, m.index)));
    parts.push(m[0] === '…' ? '.*' : m[1] ? `${m[1]}_[A-Za-z0-9]{24}` : '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(?:\\.\\d+)?Z');
    last = m.index + m[0].length;
  }
  parts.push(escape(line.slice(last)));
  return new RegExp(`^${parts.join('')}$`);
}
