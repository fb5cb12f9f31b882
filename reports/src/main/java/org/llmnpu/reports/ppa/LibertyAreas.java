package org.llmnpu.reports.ppa;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The {@code area} of every cell of a Liberty library, in the library's area unit (µm² for OSU018). */
public final class LibertyAreas {
  private static final Pattern CELL = Pattern.compile("\\bcell\\s*\\(\\s*\"?([^\")\\s]+)\"?\\s*\\)");
  private static final Pattern AREA = Pattern.compile("\\barea\\s*:\\s*([0-9.eE+-]+)\\s*;");

  private LibertyAreas() {
  }

  /** Cell name to area, for each cell that states one (the first {@code area} inside its group). */
  public static Map<String, Double> parse(String liberty) {
    List<String> names = new ArrayList<>();
    List<Integer> starts = new ArrayList<>();
    Matcher cell = CELL.matcher(liberty);
    while (cell.find()) {
      names.add(cell.group(1));
      starts.add(cell.end());
    }
    Map<String, Double> out = new TreeMap<>();
    for (int i = 0; i < names.size(); i++) {
      int to = i + 1 < names.size() ? starts.get(i + 1) : liberty.length();
      Matcher area = AREA.matcher(liberty).region(starts.get(i), to);
      if (area.find()) {
        out.put(names.get(i), Double.parseDouble(area.group(1)));
      }
    }
    return out;
  }
}
