/**
 * How `npm run readme:check` (scripts/readme-check.mjs) compares what a README block prints with
 * what the README shows (scripts/readme-blocks.mjs): `# ` lines under a command, and output blocks
 * marked `<!-- readme-check: output exact|like -->`.
 */
import { describe, expect, test } from '@jest/globals';
import { matchesShown, readmeBlocks, shellSteps } from '../../scripts/readme-blocks.mjs';

describe('matchesShown', () => {
  test('exact: the last lines, character for character', () => {
    expect(matchesShown(['X-Total-Count: 3', 'X-Page-Items: 2'], 'noise\nX-Total-Count: 3\nX-Page-Items: 2\n', 'exact')).toBe(true);
    expect(matchesShown(['X-Total-Count: 5000'], 'X-Total-Count: 5023\n', 'exact')).toBe(false);
    expect(matchesShown(['a', 'b'], 'b\n', 'exact')).toBe(false);
  });

  test('like: ids, timestamps and … stand for any of their kind; everything else must be as shown', () => {
    const link = 'Link: <http://localhost:3000/debts?after=deb_scLv6KRQduaUNtWP03vQYb3C&limit=2>; rel="next"';
    expect(matchesShown([link], link.replace('deb_scLv6KRQduaUNtWP03vQYb3C', 'deb_gtJa0biDdDxZtxggg34NZ7H8'), 'like')).toBe(true);
    expect(matchesShown([link], link.replace('deb_scLv6KRQduaUNtWP03vQYb3C', 'cus_gtJa0biDdDxZtxggg34NZ7H8'), 'like')).toBe(false);
    expect(matchesShown(['{"at":"2026-11-20T10:00:00.000Z"}'], '{"at":"2027-01-02T03:04:05.678Z"}', 'like')).toBe(true);
    expect(matchesShown(['{"id":"ten_…","name":"Acme Ltd",…}'], '{"id":"ten_x","name":"Acme Ltd","livemode":true}\n', 'like')).toBe(true);
    expect(matchesShown(['{"id":"ten_…","name":"Acme Ltd",…}'], '{"id":"ten_x","name":"Northwind","livemode":true}\n', 'like')).toBe(false);
    expect(matchesShown(['X-Total-Count: 5000'], 'X-Total-Count: 5023\n', 'like')).toBe(false);
  });

  test('like: a shown line starts at the start of a line (paid is not unpaid)', () => {
    expect(matchesShown(['paid'], 'unpaid\n', 'like')).toBe(false);
    expect(matchesShown(['paid'], 'x\npaid\n', 'like')).toBe(true);
  });

  test('like: an object Node printed over several lines matches its one-line form', () => {
    const printed = "{\n  value: 'defaulted',\n  reason: null,\n  whodunnit: 'system',\n  end_at: null\n}\n";
    expect(matchesShown(["{ value: 'defaulted', reason: null, whodunnit: 'system', … }"], printed, 'like')).toBe(true);
    expect(matchesShown(["{ value: 'paid', reason: null, … }"], printed, 'like')).toBe(false);
  });

  test('what a terminal shows: a progress bar redrawn after carriage returns is its last state', () => {
    expect(matchesShown(['[###] 3/3 rows'], '[#  ] 1/3 rows\r[## ] 2/3 rows\r[###] 3/3 rows\n', 'exact')).toBe(true);
  });
});

describe('shellSteps', () => {
  test('a run of # lines right under a command is what it prints; one after a blank line or at the top is a remark', () => {
    const code = ['# a remark', 'A=$(make)', 'show "$A"', '# line 1', '# line 2', 'other', '', '# another remark', 'last'].join('\n');
    expect(shellSteps(code)).toEqual([{ code: '# a remark\nA=$(make)\nshow "$A"', shown: ['line 1', 'line 2'] }, { code: 'other\n\n# another remark\nlast' }]);
  });
});

describe('readmeBlocks', () => {
  test('an output marker makes the next block an output block of that mode; a marker without exact or like is refused', () => {
    const md = ['```sh', 'echo hi', '# hi', '```', '<!-- readme-check: output exact -->', '```', 'hi', '```'].join('\n');
    const blocks = readmeBlocks(md);
    expect(blocks.map((b) => [b.kind, b.mode])).toEqual([
      ['shell', undefined],
      ['output', 'exact'],
    ]);
    expect(blocks[0]!.steps).toEqual([{ code: 'echo hi', shown: ['hi'] }]);
    expect(() => readmeBlocks('<!-- readme-check: output -->\n```\nx\n```')).toThrow(/README\.md:1: an output marker says exact or like/);
  });
});
