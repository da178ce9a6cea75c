/**
 * A growable column of numbers in a typed array: a million records cost their bytes, not a
 * JavaScript object each (the audit's records of content files and LOB cells, see audit-lobs.ts).
 */
type NumberArray = Int32Array | Float64Array | Uint8Array;

export class NumberColumn<A extends NumberArray> {
  private data: A;
  private count = 0;

  constructor(private readonly make: (capacity: number) => A) {
    this.data = make(1024);
  }

  get length(): number {
    return this.count;
  }

  push(value: number): number {
    if (this.count === this.data.length) {
      const grown = this.make(this.data.length * 2);
      grown.set(this.data as never);
      this.data = grown;
    }
    this.data[this.count] = value;
    return this.count++;
  }

  get(i: number): number {
    return this.data[i]!;
  }

  set(i: number, value: number): void {
    this.data[i] = value;
  }
}
