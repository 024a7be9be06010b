/**
 * Envoy's JSON/YAML form of xDS resources (proto3 JSON: `"@type"` inside an
 * Any, durations as "10s", wrappers as bare values, Struct as plain JSON,
 * field names snake_case or lowerCamelCase) → protobuf bytes, guided by a
 * protobufjs root.
 *
 * Every `"@type"` must name a message in the root: protobufjs's own JSON path
 * (proto-loader `json: true`) encodes an Any whose type it can't find as an
 * empty Any without a word, and the client then sees a config that was never
 * sent. Unknown fields are errors too, as in Envoy.
 */
import * as protobuf from 'protobufjs';
import { WRAPPER_SCALAR_KINDS } from '../../src/xds/well-known';

export class ProtoJsonError extends Error {
  constructor(path: string, problem: string) {
    super(`${path || '<root>'}: ${problem}`);
    this.name = 'ProtoJsonError';
  }
}

type Json = unknown;
type JsonObject = Record<string, unknown>;

const TYPE_PREFIX = 'type.googleapis.com/';

const WRAPPERS = WRAPPER_SCALAR_KINDS;

/** Types whose proto3 JSON form is not an object of their fields; inside an Any they sit under "value". */
const SPECIAL_JSON = new Set([
  ...Object.keys(WRAPPERS),
  '.google.protobuf.Duration',
  '.google.protobuf.Timestamp',
  '.google.protobuf.Struct',
  '.google.protobuf.Value',
  '.google.protobuf.ListValue',
  '.google.protobuf.FieldMask',
  '.google.protobuf.Any',
]);

export class ProtoJson {
  constructor(readonly root: protobuf.Root) {}

  /** The message type an Any's type URL names, or an error saying it doesn't resolve. */
  typeForUrl(typeUrl: string, path = ''): protobuf.Type {
    const name = typeUrl.substring(typeUrl.lastIndexOf('/') + 1);
    let found: protobuf.ReflectionObject | null = null;
    try {
      found = this.root.lookup(name);
    } catch {
      found = null;
    }
    if (!(found instanceof protobuf.Type)) {
      throw new ProtoJsonError(path, `"@type" ${JSON.stringify(typeUrl)} does not resolve to a message in the proto root`);
    }
    return found;
  }

  /** Encodes a JSON object carrying "@type" as an Any: `{type_url, value}`. */
  encodeAny(json: Json, path = ''): { type_url: string; value: Buffer } {
    const object = asObject(json, path);
    const typeUrl = object['@type'];
    if (typeof typeUrl !== 'string') {
      throw new ProtoJsonError(path, 'an Any needs a "@type" string');
    }
    const type = this.typeForUrl(typeUrl, path);
    const { '@type': _type, ...rest } = object;
    const body = SPECIAL_JSON.has(type.fullName) ? this.convert(type, rest.value, `${path}.value`) : this.message(type, rest, path);
    return { type_url: typeUrl.includes('/') ? typeUrl : TYPE_PREFIX + typeUrl, value: this.encode(type, body) };
  }

  /** Encodes `json` as a message of `type` (a "@type" on it, if any, must agree). */
  encodeMessage(type: protobuf.Type, json: Json, path = ''): Buffer {
    const object = asObject(json, path);
    const { '@type': typeUrl, ...rest } = object;
    if (typeUrl !== undefined && this.typeForUrl(String(typeUrl), path) !== type) {
      throw new ProtoJsonError(path, `"@type" ${JSON.stringify(typeUrl)} is not ${type.fullName.slice(1)}`);
    }
    return this.encode(type, this.message(type, rest, path));
  }

  private encode(type: protobuf.Type, body: JsonObject): Buffer {
    return Buffer.from(type.encode(type.fromObject(body)).finish());
  }

  /** JSON → the plain object protobufjs `fromObject` takes (keepCase names, Anys pre-encoded). */
  private convert(type: protobuf.Type, json: Json, path: string): JsonObject {
    switch (type.fullName) {
      case '.google.protobuf.Any':
        return this.encodeAny(json, path);
      case '.google.protobuf.Duration':
        return duration(json, path);
      case '.google.protobuf.Timestamp':
        return timestamp(json, path);
      case '.google.protobuf.Struct':
        return struct(json, path);
      case '.google.protobuf.Value':
        return value(json, path);
      case '.google.protobuf.ListValue':
        return { values: asArray(json, path).map((element, index) => value(element, `${path}[${index}]`)) };
      case '.google.protobuf.FieldMask':
        return { paths: typeof json === 'string' ? json.split(',').filter((part) => part !== '') : json };
    }
    const wrapped = WRAPPERS[type.fullName];
    if (wrapped !== undefined) {
      if (typeof json === 'object' && json !== null && !Array.isArray(json) && 'value' in json) {
        return { value: scalar(wrapped, (json as JsonObject).value, `${path}.value`) };
      }
      return { value: scalar(wrapped, json, path) };
    }
    return this.message(type, asObject(json, path), path);
  }

  private message(type: protobuf.Type, object: JsonObject, path: string): JsonObject {
    const result: JsonObject = {};
    const oneofsSet = new Map<string, string>();
    for (const [key, raw] of Object.entries(object)) {
      const fieldPath = path === '' ? key : `${path}.${key}`;
      if (key === '@type') {
        throw new ProtoJsonError(fieldPath, `"@type" is only allowed in an Any, not in ${type.fullName.slice(1)}`);
      }
      const field = fieldByJsonName(type, key);
      if (field === null) {
        throw new ProtoJsonError(fieldPath, `unknown field in ${type.fullName.slice(1)}`);
      }
      if (raw === null && field.resolvedType?.fullName !== '.google.protobuf.Value') {
        continue; // proto3 JSON: null means unset
      }
      if (field.partOf !== null && field.partOf.oneof.length > 1) {
        const other = oneofsSet.get(field.partOf.name);
        if (other !== undefined) {
          throw new ProtoJsonError(fieldPath, `"${other}" and "${field.name}" are in the same oneof ${field.partOf.name}`);
        }
        oneofsSet.set(field.partOf.name, field.name);
      }
      result[field.name] = this.fieldValue(field, raw, fieldPath);
    }
    return result;
  }

  private fieldValue(field: protobuf.Field, raw: Json, path: string): unknown {
    if (field.map) {
      const entries = Object.entries(asObject(raw, path));
      return Object.fromEntries(entries.map(([key, element]) => [key, this.single(field, element, `${path}[${JSON.stringify(key)}]`)]));
    }
    if (field.repeated) {
      return asArray(raw, path).map((element, index) => this.single(field, element, `${path}[${index}]`));
    }
    return this.single(field, raw, path);
  }

  private single(field: protobuf.Field, raw: Json, path: string): unknown {
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Type) {
      return this.convert(resolved, raw, path);
    }
    if (resolved instanceof protobuf.Enum) {
      if (typeof raw === 'string' && !(raw in resolved.values)) {
        throw new ProtoJsonError(path, `${JSON.stringify(raw)} is not a value of enum ${resolved.fullName.slice(1)}`);
      }
      if (typeof raw !== 'string' && typeof raw !== 'number') {
        throw new ProtoJsonError(path, `an enum value must be a name or a number, got ${JSON.stringify(raw)}`);
      }
      return raw;
    }
    return scalar(field.type, raw, path);
  }
}

function fieldByJsonName(type: protobuf.Type, key: string): protobuf.Field | null {
  const direct = type.fields[key];
  if (direct) {
    return direct;
  }
  return type.fieldsArray.find((field) => lowerCamel(field.name) === key) ?? null;
}

function lowerCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

function asObject(json: Json, path: string): JsonObject {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ProtoJsonError(path, `expected an object, got ${describe(json)}`);
  }
  return json as JsonObject;
}

function asArray(json: Json, path: string): unknown[] {
  if (!Array.isArray(json)) {
    throw new ProtoJsonError(path, `expected a list, got ${describe(json)}`);
  }
  return json;
}

function describe(json: Json): string {
  return json === null ? 'null' : Array.isArray(json) ? 'a list' : `${typeof json} ${JSON.stringify(json)}`;
}

const INTEGER_32 = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);
const INTEGER_64 = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

function scalar(kind: string, json: Json, path: string): unknown {
  if (INTEGER_32.has(kind) || INTEGER_64.has(kind)) {
    const text = typeof json === 'number' || typeof json === 'string' ? String(json) : '';
    if (!/^-?\d+$/.test(text)) {
      throw new ProtoJsonError(path, `expected an integer (${kind}), got ${describe(json)}`);
    }
    const unsigned = kind.startsWith('u') || kind === 'fixed32' || kind === 'fixed64';
    if (unsigned && text.startsWith('-')) {
      throw new ProtoJsonError(path, `expected a non-negative integer (${kind}), got ${text}`);
    }
    return INTEGER_64.has(kind) ? text : Number(text);
  }
  switch (kind) {
    case 'double':
    case 'float': {
      const number = typeof json === 'string' && /^(NaN|-?Infinity|-?[\d.eE+-]+)$/.test(json) ? Number(json) : json;
      if (typeof number !== 'number') {
        throw new ProtoJsonError(path, `expected a number, got ${describe(json)}`);
      }
      return number;
    }
    case 'bool':
      if (typeof json !== 'boolean') {
        throw new ProtoJsonError(path, `expected true or false, got ${describe(json)}`);
      }
      return json;
    case 'string':
      if (typeof json !== 'string') {
        throw new ProtoJsonError(path, `expected a string, got ${describe(json)}`);
      }
      return json;
    case 'bytes':
      if (typeof json !== 'string') {
        throw new ProtoJsonError(path, `expected base64 bytes, got ${describe(json)}`);
      }
      return Buffer.from(json, 'base64');
    default:
      throw new ProtoJsonError(path, `unsupported field type ${kind}`);
  }
}

const DURATION_TEXT = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/;

/** "1.5s" / "-1s" (proto3 JSON) or {seconds, nanos}. */
function duration(json: Json, path: string): JsonObject {
  if (typeof json === 'string') {
    const match = DURATION_TEXT.exec(json);
    if (!match) {
      throw new ProtoJsonError(path, `expected a duration such as "10s" or "0.25s", got ${JSON.stringify(json)}`);
    }
    const sign = match[1] === '-' ? -1 : 1;
    return durationParts(sign * Number(match[2]), sign * Number((match[3] ?? '').padEnd(9, '0')));
  }
  const object = asObject(json, path);
  return durationParts(Number(object.seconds ?? 0), Number(object.nanos ?? 0));
}

/** Zero parts left out: protobufjs writes a field that is set, even to zero, and canonical bytes have none. */
function durationParts(seconds: number, nanos: number): JsonObject {
  return { ...(seconds === 0 ? {} : { seconds: String(seconds) }), ...(nanos === 0 ? {} : { nanos }) };
}

function timestamp(json: Json, path: string): JsonObject {
  const ms = typeof json === 'string' ? Date.parse(json) : NaN;
  if (!Number.isFinite(ms)) {
    throw new ProtoJsonError(path, `expected an RFC 3339 timestamp, got ${describe(json)}`);
  }
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: (ms - seconds * 1000) * 1e6 };
}

function struct(json: Json, path: string): JsonObject {
  const object = asObject(json, path);
  return { fields: Object.fromEntries(Object.entries(object).map(([key, element]) => [key, value(element, `${path}.${key}`)])) };
}

function value(json: Json, path: string): JsonObject {
  if (json === null) {
    return { nullValue: 'NULL_VALUE' };
  }
  switch (typeof json) {
    case 'number':
      return { numberValue: json };
    case 'string':
      return { stringValue: json };
    case 'boolean':
      return { boolValue: json };
    case 'object':
      return Array.isArray(json)
        ? { listValue: { values: json.map((element, index) => value(element, `${path}[${index}]`)) } }
        : { structValue: struct(json, path) };
    default:
      throw new ProtoJsonError(path, `not a JSON value: ${describe(json)}`);
  }
}
