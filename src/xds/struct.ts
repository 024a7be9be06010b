/**
 * google.protobuf.Struct (as protobufjs decodes it) → plain JSON, the way
 * gRFC A52 passes a TypedStruct's value to a policy.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface DecodedStruct {
  fields?: Record<string, DecodedValue>;
}

export interface DecodedValue {
  nullValue?: string | number;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: DecodedStruct;
  listValue?: { values?: DecodedValue[] };
}

export function flattenStruct(struct: DecodedStruct, path = ''): { [key: string]: JsonValue } {
  const result: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(struct.fields ?? {})) {
    // Define, don't assign: a key "__proto__" must become an own field, not
    // the object's prototype (which would smuggle values past the parser).
    Object.defineProperty(result, key, {
      value: flattenValue(value, path === '' ? key : `${path}.${key}`),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

export function flattenValue(value: DecodedValue, path: string): JsonValue {
  if (value.nullValue !== undefined) {
    return null;
  }
  if (value.numberValue !== undefined) {
    return value.numberValue;
  }
  if (value.stringValue !== undefined) {
    return value.stringValue;
  }
  if (value.boolValue !== undefined) {
    return value.boolValue;
  }
  if (value.structValue !== undefined) {
    return flattenStruct(value.structValue, path);
  }
  if (value.listValue !== undefined) {
    return (value.listValue.values ?? []).map((element, index) => flattenValue(element, `${path}[${index}]`));
  }
  throw new Error(`Struct value at "${path}" has no kind set`);
}
