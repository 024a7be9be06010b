/** google.protobuf wrapper messages → the scalar kind each wraps (fully qualified names, as protobufjs reports them). */
export const WRAPPER_SCALAR_KINDS: Readonly<Record<string, string>> = {
  '.google.protobuf.DoubleValue': 'double',
  '.google.protobuf.FloatValue': 'float',
  '.google.protobuf.Int64Value': 'int64',
  '.google.protobuf.UInt64Value': 'uint64',
  '.google.protobuf.Int32Value': 'int32',
  '.google.protobuf.UInt32Value': 'uint32',
  '.google.protobuf.BoolValue': 'bool',
  '.google.protobuf.StringValue': 'string',
  '.google.protobuf.BytesValue': 'bytes',
};
