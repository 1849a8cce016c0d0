/**
 * page.layout.updateOptions: set page options. The kernel is the last guard: it stores only the
 * options the contract marks wired. Options set to what the page already shows change nothing:
 * they are left out of the diff, and a call where all are so keeps the revision.
 */
import type * as T from "../../generated/types";
import { KernelRefusal } from "../../generated/kernel/transport";
import { ERR } from "../../generated/registry";
import type { CommandReply, KernelPort } from "../port";

export function pageLayoutUpdateOptions(
  kernel: KernelPort,
  payload: T.PageLayoutUpdateOptionsPayload,
  command: string,
): CommandReply {
  return kernel.write(command, payload, (page) => {
    const shown = kernel.optionsOf(page);
    const changes = (Object.entries(payload.args.options) as Array<[string, boolean]>).filter(
      ([field, value]) => shown[field] !== value,
    );
    return {
      diff: changes.map(([field, value]) => ({ op: "set_option", field, value })),
      apply: () => {
        const unwired = Object.keys(payload.args.options).find((field) => !kernel.facts.wiredOptions.has(field));
        if (unwired) throw new KernelRefusal(ERR.unsupportedOption, undefined, unwired);
        if (changes.length === 0) return { commandName: command, revision: page.revision };
        const options = {
          ...(JSON.parse(page.options_json) as Record<string, unknown>),
          ...Object.fromEntries(changes),
        };
        kernel.sql("UPDATE pages SET options_json = ? WHERE id = ?").run(JSON.stringify(options), page.id);
        return { commandName: command, revision: kernel.bumpRevision(page) };
      },
    };
  });
}
