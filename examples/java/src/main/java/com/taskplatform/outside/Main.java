package com.taskplatform.outside;

/**
 * An outside system of the task platform: `request` asks for a report and prints its outcome,
 * `audit` reads the history as the auditor. Exit 2 for a wrong command line, 1 for any failure.
 */
public final class Main {
  private static final String USAGE = "usage: java -jar outside-system.jar request --user <id> --key <key> [--input <json>] [--task-id <uuid>] [--twice]\n"
      + "       java -jar outside-system.jar audit";

  public static void main(String[] args) {
    try {
      Settings settings = new Settings();
      String command = args.length > 0 ? args[0] : "";
      switch (command) {
        case "request" -> RequestCommand.run(settings, new Arguments(args, 1));
        case "audit" -> AuditCommand.run(settings);
        default -> {
          System.err.println(USAGE);
          System.exit(2);
        }
      }
      System.exit(0);
    } catch (IllegalArgumentException wrongUsage) {
      System.err.println(wrongUsage.getMessage() + "\n" + USAGE);
      System.exit(2);
    } catch (Exception failure) {
      System.err.println(failure);
      System.exit(1);
    }
  }
}
