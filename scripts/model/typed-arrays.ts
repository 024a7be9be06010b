/**
 * Growing the typed arrays the model and the simulator keep their state in
 * (slots, rings' backing stores, per-backend caches): one copy rule for all.
 */
type GrowableArray = Float64Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;

/** `values` copied into a new array of the same type and `capacity` elements, the new tail set to `fill`. */
export function resized<T extends GrowableArray>(values: T, capacity: number, fill = 0): T {
  const bigger = new (values.constructor as new (length: number) => T)(capacity);
  if (fill !== 0) {
    bigger.fill(fill, values.length);
  }
  bigger.set(values);
  return bigger;
}
