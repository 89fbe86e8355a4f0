package com.taskplatform.outside;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** `--name value` pairs and bare `--flag`s after the command. */
final class Arguments {
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> flags = new HashSet<>();

  Arguments(String[] args, int from) {
    for (int i = from; i < args.length; i++) {
      if (!args[i].startsWith("--")) throw new IllegalArgumentException("unexpected argument " + args[i]);
      String name = args[i].substring(2);
      if (i + 1 < args.length && !args[i + 1].startsWith("--")) values.put(name, args[++i]);
      else flags.add(name);
    }
  }

  String value(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  String required(String name) {
    String value = values.get(name);
    if (value == null) throw new IllegalArgumentException("--" + name + " is required");
    return value;
  }

  boolean flag(String name) {
    return flags.contains(name);
  }
}
