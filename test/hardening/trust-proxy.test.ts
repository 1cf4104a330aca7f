/**
 * The default `TRUST_PROXY` believes loopback only (docs/api.md section 11): a peer of the same
 * network (here a non-loopback address of the test's own veth pair, as a pod or VM beside the
 * service would be; test/support/neighbour.ts) cannot pick its address with `X-Forwarded-For`, so
 * it gets no fresh failed-authentication budget at the API and no way round a lockout at the
 * issuer; a proxy on loopback is still believed. Skipped, saying why, where no such address can be
 * had (not root, no iproute2, and the machine has only loopback).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { RunningService } from '@dms/tools/processes';
import { AUDIENCE, SERVICE_ENV, closeHarness, newTenant, type TestTenant } from '../support/harness.js';
import { borrowNeighbour } from '../support/neighbour.js';
import { serviceSet } from '../support/services.js';

const services = serviceSet();
/** A fresh forged address of the documentation prefix 2001:db8::/32. */
const forged = () => `2001:db8:${randomBytes(2).toString('hex')}::1`;

const neighbour = await borrowNeighbour();
if ('reason' in neighbour) console.warn(`SKIPPED: trust-proxy tests: ${neighbour.reason}.`);
const maybe = 'reason' in neighbour ? describe.skip : describe;
const neighbourHost = () => ('host' in neighbour ? neighbour.host : '');

const env: Record<string, string> = { ...SERVICE_ENV };
let api: RunningService;
let issuer: RunningService;
let client: TestTenant;
const via = (service: RunningService, host: string) => `http://${host}:${service.port}`;

beforeAll(async () => {
  // TRUST_PROXY unset: the default.
  delete env.TRUST_PROXY;
  [api, issuer, client] = await Promise.all([
    services.start('api', { ...env, AUTH_FAILURE_LIMIT: '2' }),
    services.start('auth', { ...env, TOKEN_FAILURE_LIMIT: '2' }),
    newTenant(),
  ]);
});

afterAll(async () => {
  await services.stopAll();
  await closeHarness();
  if ('release' in neighbour) await neighbour.release();
});

maybe('API failed-authentication budget', () => {
  const bad = (base: string, from: string) => request(base).get('/organisations').set('X-Forwarded-For', from).set('Authorization', 'Bearer nope');

  test('a neighbour forging X-Forwarded-For shares one budget: the third failure is 429', async () => {
    const base = via(api, neighbourHost());
    await bad(base, forged()).expect(401);
    await bad(base, forged()).expect(401);
    await bad(base, forged()).expect(429);
  });

  test('a proxy on loopback is believed: each forwarded client has its own budget', async () => {
    const base = via(api, '127.0.0.1');
    for (let i = 0; i < 3; i++) await bad(base, forged()).expect(401);
  });
});

maybe('issuer lockout', () => {
  const token = (base: string, from: string, secret: string) =>
    request(base)
      .post('/oauth/token')
      .set('X-Forwarded-For', from)
      .auth(client.clientId, secret)
      .type('form')
      .send({ grant_type: 'client_credentials', audience: AUDIENCE });

  test('a neighbour locked out gets no token by adding X-Forwarded-For, even with the right secret', async () => {
    const base = via(issuer, neighbourHost());
    await token(base, forged(), 'cs_wrong').expect(401);
    await token(base, forged(), 'cs_wrong').expect(401);
    const res = await token(base, forged(), client.clientSecret).expect(429);
    expect(res.body.access_token).toBeUndefined();
  });

  test('behind a proxy on loopback, a client locked out does not lock out the next one', async () => {
    const base = via(issuer, '127.0.0.1');
    const locked = forged();
    await token(base, locked, 'cs_wrong').expect(401);
    await token(base, locked, 'cs_wrong').expect(401);
    await token(base, locked, client.clientSecret).expect(429);
    expect((await token(base, forged(), client.clientSecret).expect(200)).body.access_token).toEqual(expect.any(String));
  });
});
