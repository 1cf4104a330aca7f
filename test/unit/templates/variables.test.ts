/**
 * The documented variable set of @dms/templates (docs/api.md section 13): built from a debt's
 * fields and summary, complete in the sample templates are checked against, and listed in the
 * API reference so the documentation cannot drift from the code.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AMOUNT_FIELDS, SAMPLE_VARIABLES, VARIABLE_PATHS, buildTemplateVariables } from '@dms/templates';

const input = {
  debt: { id: 'deb_1a2B3c4D5e6F7g8H9i0JkLmN', account_number: null, kind: null, currency: 'EUR' as const, start_at: null, status: 'contacted' },
  customer: {
    id: 'cus_1a2B3c4D5e6F7g8H9i0JkLmN',
    kind: 'company' as const,
    full_name: 'Acme BV',
    first_name: null,
    last_name: null,
    preferred_locale: 'nl-NL',
  },
  organisation: { id: 'org_1a2B3c4D5e6F7g8H9i0JkLmN', name: 'Creditor Ltd', customer_facing_name: null },
  summary: { amount_total: 100050, amount_paid: 50, amount_remaining: 100000, breakdown: { principal: 90000, interest: 9000, fees: 1050 } },
  reply_address: 'reply+x@reply.example.com',
  payment_link: 'https://pay.example.com/x',
  today: '2025-06-30',
};

describe('buildTemplateVariables', () => {
  test('amounts in minor units and formatted in the debt currency; the organisation name stands in for a missing customer-facing name', () => {
    const v = buildTemplateVariables(input);
    expect(v.amounts).toEqual({
      currency: 'EUR',
      total: 100050,
      paid: 50,
      remaining: 100000,
      principal: 90000,
      interest: 9000,
      fees: 1050,
      formatted: { total: '€1,000.50', paid: '€0.50', remaining: '€1,000.00', principal: '€900.00', interest: '€90.00', fees: '€10.50' },
    });
    expect(v.organisation.customer_facing_name).toBe('Creditor Ltd');
    expect(v.reply_address).toBe(input.reply_address);
  });

  test('a non-integer amount is refused', () => {
    expect(() => buildTemplateVariables({ ...input, summary: { ...input.summary, amount_paid: 0.5 } })).toThrow(RangeError);
  });
});

describe('the variable set', () => {
  test('every amount field exists in minor units and formatted', () => {
    for (const f of AMOUNT_FIELDS) {
      expect(VARIABLE_PATHS.has(`amounts.${f}`)).toBe(true);
      expect(VARIABLE_PATHS.has(`amounts.formatted.${f}`)).toBe(true);
    }
    expect(typeof SAMPLE_VARIABLES.amounts.remaining).toBe('number');
  });

  test('docs/api.md lists exactly the variable paths a template may use', () => {
    const docs = readFileSync(join(process.cwd(), 'docs', 'api.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Template language'));
    const table = section.slice(section.indexOf('| variable |'), section.indexOf('\n\n', section.indexOf('| variable |')));
    const documented = [...table.matchAll(/^\| `([a-z_.]+)` \|/gm)].map((m) => m[1]).sort();
    const leaves = [...VARIABLE_PATHS].filter((p) => ![...VARIABLE_PATHS].some((q) => q.startsWith(`${p}.`))).sort();
    expect(documented).toEqual(leaves);
  });
});
