/**
 * The series' colours, in key order (largest first): Okabe and Ito's palette, told apart with
 * most kinds of colour blindness; the legend names each beside its swatch.
 */
const PALETTE = ["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#7f7f7f"];

export const colorOf = (index: number): string => PALETTE[index % PALETTE.length] ?? "#7f7f7f";
