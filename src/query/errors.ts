import { ApiError } from '../lib/errors';

/** A 400 invalid_input about one query parameter, with a message a user can act on. */
export function queryError(param: string, message: string): ApiError {
  return new ApiError(400, 'invalid_input', `${param}: ${message}`, {
    [param]: [{ error_key: 'invalid', message, path: param }],
  });
}
