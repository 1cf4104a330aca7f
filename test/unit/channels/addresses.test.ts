/**
 * Reply and bounce addresses and Message-IDs of @dms/channels (docs/api.md section 13): tagged,
 * case-insensitive, within the 64-character local part, unforgeable without the key.
 */
import { describe, expect, test } from '@jest/globals';
import { bounceAddress, communicationIdFromMessageId, messageIdFor, parseTaggedAddress, replyAddress, taggedAddress } from '@dms/channels';

const key = { domain: 'Reply.Example.com', key: 'test-key' };
const debtId = 'deb_4mG9c0Zk2QeX7bLr1TnW8yPa';
const comId = 'com_zzzzzzzzzzzzzzzzzzzzzzzz';

describe('tagged addresses', () => {
  test('a reply address reads back to its debt, in any case, and fits a local part', () => {
    const address = replyAddress(debtId, key);
    expect(address).toMatch(/^reply\+deb-[a-z2-7]{29}-[a-z2-7]{16}@reply\.example\.com$/);
    expect(address.split('@')[0]!.length).toBeLessThanOrEqual(64);
    expect(parseTaggedAddress(address, key)).toEqual({ purpose: 'reply', id: debtId });
    expect(parseTaggedAddress(address.toUpperCase(), key)).toEqual({ purpose: 'reply', id: debtId });
  });

  test('ids at both ends of the alphabet round-trip', () => {
    for (const id of ['deb_000000000000000000000000', 'com_zzzzzzzzzzzzzzzzzzzzzzzz', 'cd_0aZ9bY8cX7dW6eV5fU4gT3hS']) {
      expect(parseTaggedAddress(taggedAddress('bounce', id, key), key)).toEqual({ purpose: 'bounce', id });
    }
  });

  test('a bounce address names its communication', () => {
    expect(parseTaggedAddress(bounceAddress(comId, key), key)).toEqual({ purpose: 'bounce', id: comId });
  });

  test('another key, another domain, a changed id, a swapped purpose or an untagged address is not ours', () => {
    const address = replyAddress(debtId, key);
    expect(parseTaggedAddress(address, { ...key, key: 'other' })).toBeNull();
    expect(parseTaggedAddress(address.replace('reply.example.com', 'evil.example.com'), key)).toBeNull();
    const [local, domain] = address.split('@');
    const flipped = local!.replace(/-([a-z2-7])/, (_, c: string) => `-${c === 'a' ? 'b' : 'a'}`);
    expect(parseTaggedAddress(`${flipped}@${domain}`, key)).toBeNull();
    expect(parseTaggedAddress(address.replace(/^reply/, 'bounce'), key)).toBeNull();
    expect(parseTaggedAddress(`reply@${domain}`, key)).toBeNull();
  });

  test('after a key rotation, an address tagged under a previous key still reads back; one under a key no longer listed does not', () => {
    const old = replyAddress(debtId, key);
    const rotated = { domain: key.domain, key: 'new-key', previous: [key.key] };
    expect(replyAddress(debtId, rotated)).not.toBe(old);
    expect(parseTaggedAddress(old, rotated)).toEqual({ purpose: 'reply', id: debtId });
    expect(parseTaggedAddress(old, { domain: key.domain, key: 'new-key' })).toBeNull();
  });

  test('something that is not an object id has no address', () => {
    expect(() => replyAddress('deb_short', key)).toThrow(RangeError);
  });
});

describe('Message-IDs', () => {
  test('are the communication id at our domain and read back only for that domain', () => {
    const id = messageIdFor(comId, 'Example.com');
    expect(id).toBe(`<${comId}@example.com>`);
    expect(communicationIdFromMessageId(id, 'example.com')).toBe(comId);
    expect(communicationIdFromMessageId(` ${id} `, 'EXAMPLE.com')).toBe(comId);
    expect(communicationIdFromMessageId(id, 'other.com')).toBeNull();
    expect(communicationIdFromMessageId('<abc@example.com>', 'example.com')).toBeNull();
  });
});
