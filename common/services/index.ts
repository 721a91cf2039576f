export { providePostgres, type ServiceHandle } from './postgres.js';
export { provideRedis } from './redis.js';
