// cytoscape-fcose ships no typings: it is a cytoscape extension (cytoscape.use(fcose)).
declare module 'cytoscape-fcose' {
  import type cytoscape from 'cytoscape';
  const fcose: cytoscape.Ext;
  export default fcose;
}
