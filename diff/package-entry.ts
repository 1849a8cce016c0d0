/**
 * @mnote/diff, the package entry (docs/PACKAGES.md): breaking-change detection between two
 * contract versions for a CI that only diffs contracts, without the generator's toolchain. Read
 * both sides (a contract folder, a git ref or a release), build them, diff, report.
 */
export * from "./index";
export { readBase, buildSide, newestRelease, DiffInputError, type ContractSources } from "./load/load-base";
export { readConfigFile, DiffConfigError } from "./load/config-files";
export { FORMATS, formatReport, formatChangelog, formatJunit, type Format, type ReportLabels } from "./report/report";
export { locateChanges } from "./report/locate";
export { applyIgnores, readIgnoreFile, type IgnoreEntry, type IgnoreOutcome } from "./judge/ignore";
export { compareWithBaseline, type Baseline } from "./judge/fingerprint";
export { readContractDir, type SourceFile } from "../codegen/phases/load";
