// The one error this package throws: bytes or an object that cannot be carried in the Protobuf form.

/**
 * Why a conversion failed. MissingPrefix and Malformed mean a bad request body (400);
 * NotRegistered means the kind has no Protobuf form (406 for a response, 415 for a request body);
 * InvalidValue means the JSON object does not fit its message (a field of the wrong type).
 */
export type ProtobufErrorReason = 'MissingPrefix' | 'Malformed' | 'NotRegistered' | 'InvalidValue';

export class ProtobufError extends Error {
  override readonly name = 'ProtobufError';
  constructor(
    readonly reason: ProtobufErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
