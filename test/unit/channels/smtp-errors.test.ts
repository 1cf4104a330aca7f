/**
 * How @dms/channels reads a failed SMTP send (RFC 5321 section 4.2; docs/api.md section 13):
 * what the conversation proves decides whether the email may be sent again.
 */
import { describe, expect, test } from '@jest/globals';
import { ChannelError, classifyHttpError, classifySmtpError } from '@dms/channels';

const err = (fields: Record<string, unknown>) => Object.assign(new Error(typeof fields.message === 'string' ? fields.message : 'failed'), fields);

describe('classifySmtpError', () => {
  test.each([
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 5.1.1 unknown user' }, 'rejected', 'recipient_rejected'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 554, response: '554 spam' }, 'rejected', 'smtp_554'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 451, response: '451 try later' }, 'not_sent', 'smtp_451'],
    [{ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 421, response: '421 closing' }, 'not_sent', 'smtp_421'],
    [{ code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN' }, 'not_sent', 'econnrefused'],
    [{ code: 'EDNS', command: 'CONN' }, 'not_sent', 'edns'],
    [{ code: 'EAUTH', command: 'AUTH PLAIN' }, 'not_sent', 'eauth'],
    [{ code: 'ETIMEDOUT', command: 'CONN', message: 'Greeting never received' }, 'not_sent', 'etimedout'],
    [{ code: 'ETIMEDOUT', command: 'CONN', message: 'Timeout' }, 'unknown', 'etimedout'],
    [{ code: 'ECONNECTION', command: 'CONN', message: 'Connection closed unexpectedly' }, 'unknown', 'econnection'],
    [{ code: 'EENVELOPE', command: 'API', message: 'Invalid recipient "a b"' }, 'rejected', 'invalid_address'],
    [{ code: 'ECONNECTION', command: 'API', message: 'Connection was destroyed' }, 'not_sent', 'econnection'],
  ])('%j is %s (%s)', (fields, outcome, code) => {
    const e = classifySmtpError(err(fields));
    expect(e).toBeInstanceOf(ChannelError);
    expect([e.outcome, e.code]).toEqual([outcome, code]);
  });
});

describe('classifyHttpError', () => {
  test('a connection that never opened is not_sent; a lost request is unknown', () => {
    expect(classifyHttpError(err({ code: 'ECONNREFUSED' })).outcome).toBe('not_sent');
    expect(classifyHttpError(err({ code: 'UND_ERR_CONNECT_TIMEOUT' })).outcome).toBe('not_sent');
    expect(classifyHttpError(err({ code: 'UND_ERR_HEADERS_TIMEOUT' })).outcome).toBe('unknown');
    expect(classifyHttpError(err({ code: 'ECONNRESET' })).outcome).toBe('unknown');
  });
});
