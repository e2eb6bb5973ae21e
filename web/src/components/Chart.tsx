/**
 * A uPlot chart sized to its container: created once per set of options, fed new data in place, resized with its
 * container, destroyed on unmount. uPlot draws on a canvas and styles its elements through the CSSOM only, so the
 * strict CSP (no inline styles) holds. The chart is hidden from screen readers: every caller gives the figures as
 * text (a caption, a table).
 */
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export type ChartOptions = Omit<uPlot.Options, 'width' | 'height'>;

export function Chart({ options, data, height }: { options: ChartOptions; data: uPlot.AlignedData; height: number }) {
  const container = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const width = () => Math.max(element.clientWidth, 200);
    const plot = new uPlot({ ...options, width: width(), height }, data, element);
    chart.current = plot;
    const resized = new ResizeObserver(() => plot.setSize({ width: width(), height }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
      chart.current = null;
    };
    // The data is set in place by the effect below; a new chart only for new options.
  }, [options, height]);

  useEffect(() => {
    chart.current?.setData(data);
  }, [data]);

  // Hidden from assistive technology: the canvas and the legend's hover values say nothing a caller's text does not.
  return <div ref={container} style={{ width: '100%' }} aria-hidden="true" />;
}
