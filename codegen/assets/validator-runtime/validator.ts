/** What every generated validator is: a type guard that leaves the first problem in .errors. */
export interface ValidationIssue {
  /** JSON pointer of the offending value. */
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface Validator<T> {
  (data: unknown): data is T;
  errors?: ValidationIssue[] | null;
}
