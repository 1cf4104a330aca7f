// Container HEALTHCHECK: exits 0 when the service in this container answers GET /healthz with 200
// within 2 s, 1 otherwise. Uses Node's fetch, so the image needs no curl or wget.
const port = process.env.PORT ?? '3000';
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
