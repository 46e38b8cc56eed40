// Reading tokenizer.json and tokenizer_config.json: every value is fetched through a
// JsonField that knows its path, so a wrong type, a missing value or a component we
// do not implement is an AttentionError naming the file and the path, e.g.
// field 'tokenizer.json: pre_tokenizer.pretokenizers[1].type', value 'Whitespace'.
import { AttentionError, describeValue } from '../errors.js';

/** One value of a JSON file, with the path that reached it. */
export class JsonField {
  constructor(
    /** The file's name: 'tokenizer.json' or 'tokenizer_config.json'. */
    readonly file: string,
    /** The path inside the file, e.g. 'model.merges[3]'; '' for the whole file. */
    readonly path: string,
    readonly value: unknown,
  ) {}

  /** The field as errors name it: 'tokenizer.json: model.vocab'. */
  get where(): string {
    return this.path === '' ? this.file : `${this.file}: ${this.path}`;
  }

  /** An object's member (undefined when absent). */
  get(key: string): JsonField {
    const object = this.object();
    return new JsonField(
      this.file,
      this.path === '' ? key : `${this.path}.${key}`,
      Object.hasOwn(object, key) ? object[key] : undefined,
    );
  }

  /** Absent or null: how these files write "not set". */
  get isNull(): boolean {
    return this.value === null || this.value === undefined;
  }

  /** A file problem at this field. */
  bad(message: string, value: unknown = this.value): AttentionError {
    return new AttentionError(`${this.where} ${message}`, {
      code: 'bad_file',
      field: this.where,
      value: ['string', 'number', 'boolean'].includes(typeof value) ? value : describeValue(value),
    });
  }

  /** A component this tokenizer does not implement, named by its "type". */
  unsupported(what: string, supported: readonly string[]): AttentionError {
    const type = this.get('type');
    return new AttentionError(
      `${type.where} is ${describeValue(type.value)}: that ${what} is not supported (supported: ${supported.join(', ')})`,
      { code: 'bad_file', field: type.where, value: type.value },
    );
  }

  object(): Record<string, unknown> {
    const v = this.value;
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw this.bad(`must be an object, got ${describeValue(v)}`);
    return v as Record<string, unknown>;
  }

  /** The object's members as fields, in the file's order. */
  entries(): [string, JsonField][] {
    return Object.keys(this.object()).map((key) => [key, this.get(key)]);
  }

  items(): JsonField[] {
    const v = this.value;
    if (!Array.isArray(v)) throw this.bad(`must be an array, got ${describeValue(v)}`);
    return v.map((item, i) => new JsonField(this.file, `${this.path}[${i}]`, item));
  }

  string(): string {
    if (typeof this.value !== 'string') throw this.bad(`must be a string, got ${describeValue(this.value)}`);
    return this.value;
  }

  /** A string, or null when absent or null. */
  optionalString(): string | null {
    return this.isNull ? null : this.string();
  }

  /** A single Unicode character (Metaspace's replacement, Strip's content). */
  char(): string {
    const s = this.string();
    if ([...s].length !== 1) throw this.bad('must be one character', s);
    return s;
  }

  boolean(fallback?: boolean): boolean {
    if (this.isNull && fallback !== undefined) return fallback;
    if (typeof this.value !== 'boolean') throw this.bad(`must be true or false, got ${describeValue(this.value)}`);
    return this.value;
  }

  /** A non-negative integer (ids, counts). */
  count(fallback?: number): number {
    if (this.isNull && fallback !== undefined) return fallback;
    const v = this.value;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw this.bad(`must be a non-negative integer, got ${describeValue(v)}`);
    return v;
  }

  /** The "type" member that every component of tokenizer.json has. */
  type(): string {
    return this.get('type').string();
  }

  /** One of the listed strings. */
  oneOf<T extends string>(allowed: readonly T[], fallback?: T): T {
    if (this.isNull && fallback !== undefined) return fallback;
    const s = this.string();
    if (!(allowed as readonly string[]).includes(s)) throw this.bad(`must be one of ${allowed.join(', ')}`, s);
    return s as T;
  }
}

/** Parses a JSON file's text; malformed JSON is a 'bad_file' error naming the file. */
export function parseJsonFile(file: string, text: unknown): JsonField {
  if (typeof text !== 'string')
    throw new AttentionError(`${file} must be given as text, got ${describeValue(text)}`, {
      field: file,
      value: describeValue(text),
    });
  try {
    return new JsonField(file, '', JSON.parse(text));
  } catch (error) {
    throw new AttentionError(`${file} is not valid JSON: ${(error as Error).message}`, {
      code: 'bad_file',
      field: file,
      value: (error as Error).message,
    });
  }
}
