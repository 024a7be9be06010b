/**
 * protobufjs decodes google.protobuf wrapper fields (UInt32Value, DoubleValue,
 * …) as `{value: x}` (`{}` when x is zero); ts-proto's interfaces in
 * src/generated, our typed view, have the bare `x`. This converts a decoded
 * message to that view, guided by its descriptor. Everything else (Duration
 * as {seconds: string, nanos}, enums by name, nested messages) is already in
 * the view's shape.
 */
import * as protobuf from 'protobufjs';

const WRAPPER_ZERO: Readonly<Record<string, unknown>> = {
  '.google.protobuf.DoubleValue': 0,
  '.google.protobuf.FloatValue': 0,
  '.google.protobuf.Int64Value': '0',
  '.google.protobuf.UInt64Value': '0',
  '.google.protobuf.Int32Value': 0,
  '.google.protobuf.UInt32Value': 0,
  '.google.protobuf.BoolValue': false,
  '.google.protobuf.StringValue': '',
  '.google.protobuf.BytesValue': Buffer.alloc(0),
};

type Decoded = Record<string, unknown>;

export function toProtoView(type: protobuf.Type, decoded: Decoded): Decoded {
  const view: Decoded = {};
  for (const [name, value] of Object.entries(decoded)) {
    const field = type.fields[name];
    const resolved = field?.resolvedType;
    if (!(resolved instanceof protobuf.Type) || value === undefined || value === null) {
      view[name] = value;
    } else if (field.map) {
      view[name] = Object.fromEntries(
        Object.entries(value as Decoded).map(([key, element]) => [key, convert(resolved, element as Decoded)]),
      );
    } else if (field.repeated) {
      view[name] = (value as Decoded[]).map((element) => convert(resolved, element));
    } else {
      view[name] = convert(resolved, value as Decoded);
    }
  }
  return view;
}

function convert(type: protobuf.Type, value: Decoded): unknown {
  if (type.fullName in WRAPPER_ZERO) {
    return value.value ?? WRAPPER_ZERO[type.fullName];
  }
  return toProtoView(type, value);
}
