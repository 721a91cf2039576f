import Joi from 'joi';

/**
 * The token and revocation endpoints' request rules (RFC 6749 3.2 and RFC 7009 2.1): the routes
 * validate with them and the document states them (api/contract.ts). Parameters a rule does not
 * name are ignored, as RFC 6749 3.2 requires; every named one, when present, is a string. Which
 * error code a refusal carries (invalid_request, unsupported_grant_type, unsupported_token_type)
 * is the route's: the RFCs name it per parameter.
 */
export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

const text = Joi.string().allow('');

export const tokenRequestSchema = Joi.object({
  grant_type: Joi.string()
    .valid(...GRANT_TYPES)
    .required(),
  code: text,
  refresh_token: text,
  scope: text,
  client_id: text,
  client_secret: text,
  redirect_uri: text.description('Required when the authorization request named one.'),
  code_verifier: text.description(
    'PKCE verifier; required when the authorization request had a code_challenge.',
  ),
})
  .unknown(true)
  .description(
    'authorization_code: code (and redirect_uri, code_verifier as the authorization request had them). refresh_token: refresh_token, and optionally scope (part of the granted scope).',
  )
  .id('TokenRequest');

export const TOKEN_TYPE_HINTS = ['access_token', 'refresh_token'] as const;

export const revocationRequestSchema = Joi.object({
  token: Joi.string().required(),
  token_type_hint: Joi.string().valid(...TOKEN_TYPE_HINTS),
  client_id: text,
  client_secret: text,
})
  .unknown(true)
  .id('RevocationRequest');
