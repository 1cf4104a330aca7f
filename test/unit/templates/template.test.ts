/**
 * Communication templates of @dms/templates (docs/api.md section 13): strict about
 * variables, filters and tags both when saved (`validateTemplate`, naming the variable and its
 * position) and when rendered; escaped by default, HTML for email bodies and plain text (line
 * breaks folded, controls removed) for subjects, SMS and letters.
 */
import { describe, expect, test } from '@jest/globals';
import { SAMPLE_VARIABLES, TemplateError, compileTemplate, renderTemplate, validateTemplate, type TemplateVariables } from '@dms/templates';

const withCustomer = (customer: Partial<TemplateVariables['customer']>): TemplateVariables => ({
  ...SAMPLE_VARIABLES,
  customer: { ...SAMPLE_VARIABLES.customer, ...customer },
});

describe('validateTemplate: a valid template of each channel', () => {
  test('email, SMS and letter templates using the documented variables and filters have no problem', () => {
    expect(
      validateTemplate(
        {
          subject: 'Your {{ organisation.customer_facing_name }} account {{ debt.account_number }}',
          body: '<p>Dear {{ customer.first_name | default: customer.full_name }},</p><p>{{ amounts.formatted.remaining }} ({{ amounts.remaining | money }}) is due. <a href="{{ payment_link }}">Pay</a> or reply to {{ reply_address }}.</p>',
        },
        'email',
      ),
    ).toEqual([]);
    expect(validateTemplate({ body: '{{ organisation.customer_facing_name }}: {{ amounts.formatted.remaining }} due. Pay {{ payment_link }}' }, 'sms')).toEqual(
      [],
    );
    expect(
      validateTemplate(
        {
          subject: 'Account {{ debt.account_number }}',
          body: '{{ today }}\n\nDear {{ customer.full_name }},\n{% if amounts.fees > 0 %}Fees: {{ amounts.fees | money: "GBP" }}{% endif %}',
        },
        'letter',
      ),
    ).toEqual([]);
  });

  test('Liquid locals and built-in properties are not mistaken for unknown variables', () => {
    expect(
      validateTemplate(
        { body: '{% assign n = customer.full_name | upcase %}{{ n }} {{ customer.full_name.size }} {% for c in (1..2) %}{{ forloop.index }}{% endfor %}' },
        'sms',
      ),
    ).toEqual([]);
  });
});

describe('validateTemplate: problems name the field, the position and the culprit', () => {
  test('an unknown variable, even in a branch the sample never takes, is named with its line and column', () => {
    const problems = validateTemplate({ body: 'Hello\n{% if false %}  {{ customer.nickname }}{% endif %}' }, 'sms');
    expect(problems).toEqual([
      {
        code: 'unknown_variable',
        field: 'body',
        line: 2,
        column: 20,
        variable: 'customer.nickname',
        message: 'body, line 2, column 20: unknown variable customer.nickname',
      },
    ]);
  });

  test('an unknown top-level variable and a property of a leaf are both unknown', () => {
    const problems = validateTemplate({ subject: '{{ debtor.name }}', body: '{{ debt.id.owner }}' }, 'email');
    expect(problems.map((p) => [p.field, p.code, p.variable])).toEqual([
      ['subject', 'unknown_variable', 'debtor'],
      ['body', 'unknown_variable', 'debt.id.owner'],
    ]);
  });

  test('an unknown filter is named; `raw`, which would bypass escaping, does not exist', () => {
    expect(validateTemplate({ body: 'x\n {{ customer.full_name | shout }}' }, 'letter')).toEqual([
      { code: 'unknown_filter', field: 'body', line: 2, column: 2, filter: 'shout', message: 'body, line 2, column 2: unknown filter shout' },
    ]);
    expect(validateTemplate({ body: '{{ customer.full_name | raw }}' }, 'email').find((p) => p.field === 'body')).toMatchObject({
      code: 'unknown_filter',
      filter: 'raw',
    });
  });

  test('tags that read other templates and unknown tags are refused', () => {
    expect(validateTemplate({ body: '{% include "header" %}' }, 'sms')).toMatchObject([
      { code: 'unknown_tag', line: 1, column: 1, message: expect.stringContaining('"include" is not available') },
    ]);
    expect(validateTemplate({ body: '{% render "x" %}' }, 'sms')).toMatchObject([{ code: 'unknown_tag' }]);
    expect(validateTemplate({ body: '{% shout %}' }, 'sms')).toMatchObject([{ code: 'unknown_tag', message: expect.stringContaining('"shout" not found') }]);
  });

  test('a syntax error is reported with its position', () => {
    expect(validateTemplate({ body: 'ok\n{{ customer.full_name ' }, 'sms')).toMatchObject([{ code: 'syntax', line: 2, column: 1 }]);
  });

  test('a filter that fails on the sample (money of a non-amount) is a render problem', () => {
    expect(validateTemplate({ body: '{{ debt.account_number | money }}' }, 'sms')).toMatchObject([
      { code: 'render', message: expect.stringContaining('money: expects an amount') },
    ]);
  });

  test('a template that exceeds the memory limit is refused, not run for ever', () => {
    expect(validateTemplate({ body: '{% for i in (1..100000000) %}{{ i }}{% endfor %}' }, 'sms')).toMatchObject([
      { code: 'render', message: expect.stringContaining('limit') },
    ]);
  });

  test('fields per channel: an email needs a subject, an SMS has none, every template needs a body', () => {
    expect(validateTemplate({ body: '<p>x</p>' }, 'email')).toMatchObject([
      { code: 'required', field: 'subject', message: 'subject: an email template needs a subject' },
    ]);
    expect(validateTemplate({ subject: 'Hi', body: 'x' }, 'sms')).toMatchObject([{ code: 'not_allowed', field: 'subject' }]);
    expect(validateTemplate({ body: '  ' }, 'letter')).toMatchObject([{ code: 'required', field: 'body' }]);
  });
});

describe('rendering', () => {
  test('an email body is HTML-escaped (controls such as CR removed), its subject is plain text on one line', () => {
    const t = compileTemplate({ subject: 'Re: {{ customer.full_name }}', body: '<p>Dear {{ customer.full_name }}</p>' }, 'email');
    const out = t.render(withCustomer({ full_name: 'Ann <script>alert(1)</script> "&"\r\nBcc: x@example.com' }));
    expect(out).toEqual({
      subject: 'Re: Ann <script>alert(1)</script> "&" Bcc: x@example.com',
      body: '<p>Dear Ann &lt;script&gt;alert(1)&lt;/script&gt; &#34;&amp;&#34;\nBcc: x@example.com</p>',
      format: 'html',
    });
  });

  test('SMS and letter text: line breaks in data fold to a space, controls and bidi overrides go, the template keeps its own lines', () => {
    const sms = renderTemplate(
      { body: 'Dear {{ customer.full_name }},\nyou owe {{ amounts.formatted.remaining }}' },
      'sms',
      withCustomer({ full_name: 'Ann\n\nPay to 12-34-56\u0007 \u202Eevil' }),
    );
    expect(sms).toEqual({ subject: null, body: 'Dear Ann Pay to 12-34-56 evil,\nyou owe £100.00', format: 'text' });
    const letter = renderTemplate({ subject: 'Account {{ debt.account_number }}', body: 'Line 1\nLine 2 {{ today }}' }, 'letter', SAMPLE_VARIABLES);
    expect(letter).toEqual({ subject: 'Account ACC-1001', body: 'Line 1\nLine 2 2025-03-01', format: 'text' });
  });

  test('money: minor units in the debt currency by default, or the currency given', () => {
    const eur = { ...SAMPLE_VARIABLES, amounts: { ...SAMPLE_VARIABLES.amounts, currency: 'EUR' as const } };
    expect(renderTemplate({ body: '{{ amounts.remaining | money }} {{ 5 | money: "USD" }}' }, 'sms', eur).body).toBe('€100.00 $0.05');
  });

  test('a null field renders as nothing, while a missing one is an error when rendering too', () => {
    const t = compileTemplate({ body: '[{{ customer.first_name }}]' }, 'sms');
    expect(t.render(withCustomer({ first_name: null })).body).toBe('[]');
    const { first_name: _dropped, ...customer } = SAMPLE_VARIABLES.customer;
    let error: unknown;
    try {
      t.render({ ...SAMPLE_VARIABLES, customer: customer as TemplateVariables['customer'] });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TemplateError);
    expect((error as TemplateError).problems).toEqual([
      {
        code: 'unknown_variable',
        field: 'body',
        line: 1,
        column: 5,
        variable: 'customer.first_name',
        message: 'body, line 1, column 5: unknown variable customer.first_name',
      },
    ]);
  });

  test('compileTemplate refuses an invalid template with every problem', () => {
    expect(() => compileTemplate({ subject: '{{ nope }}', body: '{{ nada }}' }, 'email')).toThrow(
      'subject, line 1, column 4: unknown variable nope; body, line 1, column 4: unknown variable nada',
    );
  });
});
