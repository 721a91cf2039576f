import { Router } from '@koa/router';
import Koa from 'koa';

// B0: the reference: a bare Koa + router route returning a small JSON body.
const app = new Koa();
const router = new Router();
router.get('/hello', (ctx) => {
  ctx.body = { hello: 'world' };
});
app.use(router.routes());
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(
    `${JSON.stringify({ msg: 'listening', port: (server.address() as { port: number }).port })}\n`,
  );
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
