package org.llmnpu.reports.html;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.llmnpu.reports.HeadlessChromium;
import org.llmnpu.reports.RequiredTools;
import org.llmnpu.reports.TestDesigns;

/** Renders a real report in headless Chromium, so a broken page fails the build. */
class BrowserRenderTest {
  @Test
  void reportRendersInChromiumWithItsTitleAndVisibleContent(@TempDir Path tmp) throws Exception {
    RequiredTools.require("yosys", "sta", "chromium");
    PpaReport r = ReportTest.counterSweep(TestDesigns.options());
    Path out = tmp.resolve("report");
    ReportWriter.write(r, out);

    String dom = HeadlessChromium.dumpDom(out.resolve("index.html"));
    assertTrue(dom.contains("<title>PPA report: counter (sweep of width)</title>"), "title in the rendered DOM");
    assertTrue(dom.contains("<svg"), "the plots are in the rendered DOM");

    Path png = tmp.resolve("report.png");
    HeadlessChromium.screenshot(out.resolve("index.html"), png);
    BufferedImage img = ImageIO.read(png.toFile());
    assertTrue(img.getWidth() == 1200 && img.getHeight() == 900, img.getWidth() + "x" + img.getHeight());
    int inked = 0;
    Set<Integer> colors = new HashSet<>();
    for (int y = 0; y < img.getHeight(); y += 2) {
      for (int x = 0; x < img.getWidth(); x += 2) {
        int rgb = img.getRGB(x, y) & 0xFFFFFF;
        colors.add(rgb);
        if (rgb != 0xFFFFFF) {
          inked++;
        }
      }
    }
    int samples = (img.getWidth() / 2) * (img.getHeight() / 2);
    assertTrue(inked > samples / 50, "page is not blank: " + inked + " of " + samples + " samples inked");
    assertTrue(colors.size() > 20, "text, tables and plot colours: " + colors.size() + " colours");
  }
}
