import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'chai';
import { openApiDocument } from '../../api/openapi.js';

// ajv-formats is CommonJS; under ESM its function sits on default.
type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;
/** A validator holding the whole document as `openapi`: its schemas by JSON pointer, `openapi#/...`. */
export const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...openApiDocument, $id: 'openapi' } as object, 'openapi');

export interface Res<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

type Paths = typeof openApiDocument.paths;

/**
 * fetch() wrapper that checks every response against the OpenAPI document: the documented path and
 * method must list the status, with a matching content type and body schema. A response the document
 * does not describe fails the test that received it.
 */
export async function call<T = Record<string, unknown>>(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; json?: unknown; body?: string; spec?: keyof Paths | false } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  let body = opts.body;
  if (opts.json !== undefined) {
    body = JSON.stringify(opts.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  const parsed = (type.includes('json') && text ? JSON.parse(text) : text) as T;
  if (opts.spec !== false)
    checkAgainstSpec(method, opts.spec ?? (path.split('?')[0] as keyof Paths), res.status, type, parsed);
  return { status: res.status, headers: res.headers, body: parsed, text };
}

function checkAgainstSpec(
  method: string,
  template: keyof Paths,
  status: number,
  contentType: string,
  body: unknown,
) {
  const pathItem = openApiDocument.paths[template] as
    Record<string, { responses: Record<string, unknown> }> | undefined;
  expect(pathItem, `path ${String(template)} is not in the OpenAPI document`).to.not.equal(undefined);
  const operation = pathItem![method.toLowerCase()];
  expect(operation, `${method} ${String(template)} is not in the OpenAPI document`).to.not.equal(undefined);
  const response = operation!.responses[String(status)] as
    { content?: Record<string, { schema: object }> } | undefined;
  expect(
    response,
    `${method} ${String(template)} answered ${status}, which the OpenAPI document does not list`,
  ).to.not.equal(undefined);
  if (!response!.content) return; // a redirect: no body to check
  const mediaType = contentType.split(';')[0]!.trim();
  const media = response!.content?.[mediaType];
  expect(
    media,
    `${method} ${String(template)} ${status} answered ${mediaType}, not in the document`,
  ).to.not.equal(undefined);
  const pointer = `openapi#/paths/${String(template).replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/${mediaType.replace(/\//g, '~1')}/schema`;
  const validate = ajv.getSchema(pointer);
  expect(validate, `no schema at ${pointer}`).to.not.equal(undefined);
  const ok = validate!(body);
  expect(
    ok,
    `${method} ${String(template)} ${status} body does not match the document: ${ajv.errorsText(validate!.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
  ).to.equal(true);
}
