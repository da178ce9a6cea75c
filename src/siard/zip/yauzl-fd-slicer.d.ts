/** yauzl's vendored fd-slicer, which has no types of its own: the class fd-slicer-guard.ts guards. */
declare module 'yauzl/fd-slicer.js' {
  export class FdSlicer {
    constructor(fd: number);
    createReadStream(options: object): object;
  }
}
