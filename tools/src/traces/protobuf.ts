/**
 * A reader of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/), enough
 * to decode OTLP messages without generated code: each field of a message as its number, wire type
 * and raw value (varint as bigint, length-delimited as bytes, fixed64/fixed32 as bytes).
 */

/** One field of a message as it appears on the wire. */
export type WireField =
  | { field: number; wire: 0; value: bigint }
  | { field: number; wire: 1; value: Buffer }
  | { field: number; wire: 2; value: Buffer }
  | { field: number; wire: 5; value: Buffer };

/**
 * The fields of one message, in order.
 * @throws Error on a truncated message or a wire type protobuf 3 does not use (groups)
 */
export function readFields(buf: Buffer): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (pos >= buf.length) throw new Error('protobuf: truncated varint');
      const byte = buf[pos++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
    }
  };
  const take = (n: number): Buffer => {
    if (pos + n > buf.length) throw new Error('protobuf: truncated field');
    const out = buf.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  while (pos < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) fields.push({ field, wire, value: varint() });
    else if (wire === 1) fields.push({ field, wire, value: take(8) });
    else if (wire === 2) fields.push({ field, wire, value: take(Number(varint())) });
    else if (wire === 5) fields.push({ field, wire, value: take(4) });
    else throw new Error(`protobuf: unsupported wire type ${wire}`);
  }
  return fields;
}

/** The length-delimited values of field `n` (repeated messages, strings, bytes). */
export function bytesOf(fields: WireField[], n: number): Buffer[] {
  return fields.filter((f): f is Extract<WireField, { wire: 2 }> => f.field === n && f.wire === 2).map((f) => f.value);
}

/** The last value of string field `n`, '' when absent (protobuf 3 default). */
export function stringOf(fields: WireField[], n: number): string {
  return bytesOf(fields, n).at(-1)?.toString('utf8') ?? '';
}

/** The last value of a varint field `n`, 0 when absent. */
export function varintOf(fields: WireField[], n: number): bigint {
  const f = fields.filter((x) => x.field === n && x.wire === 0).at(-1);
  return f?.wire === 0 ? f.value : 0n;
}

/** The last value of a fixed64 field `n` as an unsigned integer, 0 when absent. */
export function fixed64Of(fields: WireField[], n: number): bigint {
  const f = fields.filter((x) => x.field === n && x.wire === 1).at(-1);
  return f?.wire === 1 ? f.value.readBigUInt64LE(0) : 0n;
}
