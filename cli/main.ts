/**
 * mnote-tools: one CLI, a thin layer over the pure APIs in codegen/ and runtime/. Each verb loads
 * its implementation only when it runs, so `mnote-tools call` does not pay for the generator.
 */
import { Command } from "commander";
import { CliExit } from "./exit";

export async function main(argv: readonly string[]): Promise<void> {
  const program = new Command()
    .name("mnote-tools")
    .description("The mnote page-AI tool contract: generate code from it, and run its tools.")
    .showHelpAfterError()
    .exitOverride();

  program
    .command("generate")
    .description("generate types, validators, registry, kernel client, agent surfaces and docs from contract/")
    .option("--contract <dir>", "the contract folder", "contract")
    .option("--out <dir>", "the output folder", "generated")
    .option("--check", "write nothing; exit 1 when the output folder differs from what would be generated")
    .option("--watch", "regenerate whenever a contract file changes")
    .option("--quiet", "print only problems")
    .action(async (opts) => (await import("./commands/generate")).runGenerate(opts));

  try {
    await program.parseAsync(argv as string[]);
  } catch (e) {
    if (e instanceof CliExit) {
      process.exitCode = e.code;
      return;
    }
    const code = (e as { code?: string; exitCode?: number }).code;
    if (typeof code === "string" && code.startsWith("commander.")) {
      process.exitCode = (e as { exitCode: number }).exitCode;
      return;
    }
    throw e;
  }
}
