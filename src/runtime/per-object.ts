/**
 * A value per object, made on first use and gone with the object: a chain's read caches per node store, its call
 * VMs and kept call outcomes per chain core.
 */
export function perObject<K extends object, T>(make: (key: K) => T): (key: K) => T {
  const values = new WeakMap<K, T>()
  return (key) => {
    let value = values.get(key)
    if (value === undefined) {
      value = make(key)
      values.set(key, value)
    }
    return value
  }
}
