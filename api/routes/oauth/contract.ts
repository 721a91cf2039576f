import { joiBody } from '../../contract.js';
import { revocationRequestSchema, tokenRequestSchema } from './schema.js';
import { json, problem, ref } from '../../openapi-parts.js';

/** The OpenAPI operations of the oauth routes (routes.ts beside it); api/openapi.ts assembles them. */
export const paths = {
  '/v1/oauth/authorize': {
    get: {
      operationId: 'authorize',
      tags: ['oauth'],
      summary: 'Authorization endpoint (RFC 6749 4.1.1): the sign-in and consent page',
      parameters: [
        { name: 'response_type', in: 'query', required: true, schema: { const: 'code' } },
        { name: 'client_id', in: 'query', required: true, schema: { type: 'string' } },
        {
          name: 'redirect_uri',
          in: 'query',
          schema: { type: 'string' },
          description: 'Must equal a registered URI; optional when exactly one is registered.',
        },
        { name: 'state', in: 'query', schema: { type: 'string', maxLength: 1024 } },
        { name: 'scope', in: 'query', schema: { type: 'string', default: 'profile' } },
        {
          name: 'code_challenge',
          in: 'query',
          schema: { type: 'string' },
          description: 'PKCE (RFC 7636), base64url SHA-256 of the verifier.',
        },
        { name: 'code_challenge_method', in: 'query', schema: { const: 'S256' } },
      ],
      responses: {
        200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
        302: {
          description:
            'Back to the redirect URI with error and state (invalid request, unsupported response type, invalid scope).',
        },
        400: {
          description: 'Unknown client or unregistered redirect URI: an error page, never a redirect.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    },
    post: {
      operationId: 'authorizeDecision',
      tags: ['oauth'],
      summary: 'The page form: sign in (or create an account) and allow, or deny',
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['decision', 'csrf', 'client_id', 'response_type'],
              properties: {
                decision: { enum: ['approve', 'deny', 'signup'] },
                gamer_tag: { type: 'string' },
                password: { type: 'string' },
                full_name: { type: 'string' },
                csrf: { type: 'string' },
                client_id: { type: 'string' },
                response_type: { const: 'code' },
                redirect_uri: { type: 'string' },
                state: { type: 'string' },
                scope: { type: 'string' },
                code_challenge: { type: 'string' },
                code_challenge_method: { const: 'S256' },
              },
            },
          },
        },
      },
      responses: {
        303: {
          description:
            'Back to the redirect URI with code and state (or error=access_denied), and iss (RFC 9207).',
        },
        400: {
          description: 'Form error shown on the page.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        401: {
          description: 'Wrong gamer tag or password, shown on the page.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        403: {
          description: 'Missing or wrong CSRF token.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        415: { description: 'Not a form post.', content: { 'text/html': { schema: { type: 'string' } } } },
        429: {
          description:
            'Too many failed sign-ins for this account or address; Retry-After says when to retry.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      },
    },
  },
  '/v1/oauth/token': {
    post: {
      operationId: 'token',
      tags: ['oauth'],
      summary: 'Exchange authorization code (or a refresh token) for access token',
      description:
        'Client authentication by client_id/client_secret in the body (the spec) or HTTP Basic (RFC 6749 2.3.1). Errors are RFC 6749 5.2 (error, error_description) inside the common error body, sent as application/json as OAuth requires.',
      requestBody: joiBody(tokenRequestSchema, {
        contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      }),
      responses: {
        200: json(ref('TokenResponse'), 'The access token (Cache-Control: no-store).'),
        400: json(
          ref('ErrorResponse'),
          'invalid_request, invalid_grant, invalid_scope or unsupported_grant_type.',
        ),
        401: json(ref('ErrorResponse'), 'invalid_client.'),
        413: problem('Body too large.'),
        415: problem('Body is neither JSON nor form-encoded.'),
        500: problem('Server error.'),
      },
    },
  },
  '/v1/oauth/revoke': {
    post: {
      operationId: 'revokeToken',
      tags: ['oauth'],
      summary: 'Token revocation (RFC 7009)',
      description:
        'The client the token was issued to revokes it: a refresh token ends its whole sign-in (every refresh and access token of that grant), an access token ends itself. An unknown, invalid or expired token, or one issued to another client, gets the same 200 and revokes nothing. Client authentication as at the token endpoint.',
      requestBody: joiBody(revocationRequestSchema, {
        contentTypes: ['application/x-www-form-urlencoded', 'application/json'],
      }),
      responses: {
        200: json({ type: 'object', additionalProperties: false }, 'Revoked, or nothing to revoke.'),
        400: json(ref('ErrorResponse'), 'invalid_request (no token) or unsupported_token_type.'),
        401: json(ref('ErrorResponse'), 'invalid_client.'),
        413: problem('Body too large.'),
        415: problem('Body is neither JSON nor form-encoded.'),
        500: problem('Server error.'),
      },
    },
  },
  '/v1/oauth/jwks.json': {
    get: {
      operationId: 'jwks',
      tags: ['oauth'],
      summary: 'Public keys that sign access tokens (current and previous)',
      responses: {
        200: json(
          {
            type: 'object',
            required: ['keys'],
            properties: {
              keys: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['kty', 'kid'],
                  properties: {
                    kty: { type: 'string' },
                    kid: { type: 'string' },
                    alg: { type: 'string' },
                    use: { type: 'string' },
                    crv: { type: 'string' },
                    x: { type: 'string' },
                    y: { type: 'string' },
                  },
                },
              },
            },
          },
          'JWKS.',
        ),
      },
    },
  },
  '/.well-known/oauth-authorization-server': {
    get: {
      operationId: 'authorizationServerMetadata',
      tags: ['oauth'],
      summary: 'Authorization server metadata (RFC 8414)',
      responses: {
        200: json(
          {
            type: 'object',
            required: [
              'issuer',
              'authorization_endpoint',
              'token_endpoint',
              'jwks_uri',
              'response_types_supported',
              'code_challenge_methods_supported',
            ],
            properties: {
              issuer: { type: 'string' },
              authorization_endpoint: { type: 'string' },
              token_endpoint: { type: 'string' },
              jwks_uri: { type: 'string' },
              response_types_supported: { type: 'array', items: { type: 'string' } },
              code_challenge_methods_supported: { type: 'array', items: { type: 'string' } },
            },
          },
          'Metadata.',
        ),
      },
    },
  },
};

/** Components of the document that only this feature's answers use. */
export const schemas = {
  TokenResponse: {
    type: 'object',
    additionalProperties: false,
    required: ['access_token', 'token_type', 'expires_in'],
    properties: {
      access_token: {
        type: 'string',
        description:
          'JWT (ES256) with iss, aud (client_id), sub (serviceId), iat, exp, jti, scope; kid in the header.',
      },
      token_type: { const: 'Bearer' },
      expires_in: { type: 'integer' },
      scope: { type: 'string' },
      refresh_token: {
        type: 'string',
        description:
          'With the offline_access scope: a single-use refresh token (each refresh returns a new one; presenting a used one revokes the whole sign-in).',
      },
    },
  },
} as const;
