package report

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/go-analyze/charts"
)

// SuccessCurvesSVG draws S(b), b = 1..max budget, of every policy as one
// line chart in SVG.
func SuccessCurvesSVG(r *Report) ([]byte, error) {
	mb := r.maxBudget()
	if mb < 1 || len(r.Policies) == 0 {
		return nil, fmt.Errorf("success curves: no budgets or no policies")
	}
	var values [][]float64
	var names []string
	for _, p := range r.Policies {
		c := p.Summary.Curve
		if len(c) < mb+1 {
			return nil, fmt.Errorf("success curves: policy %s has a curve of %d points, want %d", p.Name, len(c), mb+1)
		}
		values = append(values, append([]float64(nil), c[1:mb+1]...))
		names = append(names, p.Name)
	}
	labels := make([]string, mb)
	for i := range labels {
		labels[i] = strconv.Itoa(i + 1)
	}
	opt := charts.NewLineChartOptionWithData(values)
	opt.Title = charts.TitleOption{Text: "Success within B expansions, S(B)"}
	opt.XAxis.Labels = labels
	opt.Legend = charts.LegendOption{SeriesNames: names, Offset: charts.OffsetRight}
	opt.YAxis = []charts.YAxisOption{{Min: charts.Ptr(0.0), Max: charts.Ptr(1.0)}}
	opt.Symbol = charts.Symbol{Shape: charts.SymbolNone}
	p := charts.NewPainter(charts.PainterOptions{OutputFormat: charts.ChartOutputSVG, Width: 960, Height: 520})
	if err := p.LineChart(opt); err != nil {
		return nil, fmt.Errorf("success curves: %w", err)
	}
	return p.Bytes()
}

// WriteHTML writes the self-contained HTML report: the results table, the
// success curves and, when r.Viewer is set, the tree viewer. The page's
// script marks <body data-render="ok"> when it has rendered, and
// data-render="error" (with the message in #js-error) on any script error.
func WriteHTML(w io.Writer, r *Report) error {
	svg, err := SuccessCurvesSVG(r)
	if err != nil {
		return err
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, r); err != nil {
		return err
	}
	data, err := json.Marshal(r) // escapes <, > and & for the script element
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
	b.WriteString(html.EscapeString(r.Title))
	b.WriteString("</title>\n<script>window.onerror=function(m,s,l,c,e){document.body.setAttribute('data-render','error');var d=document.getElementById('js-error');if(d){d.textContent='script error: '+m+' at '+l+':'+c;d.style.display='block';}};</script>\n<style>")
	b.WriteString(css)
	b.WriteString("</style></head>\n<body data-render=\"pending\">\n<div id=\"js-error\" style=\"display:none\"></div>\n<h1>")
	b.WriteString(html.EscapeString(r.Title))
	b.WriteString("</h1>\n<section><h2>Results</h2><table id=\"results\"></table><p class=\"note\">")
	fmt.Fprintf(&b, "%d trees, %d tasks, split %s, corpus %s. ± is the standard error of a bootstrap clustered by task.", r.Trees, r.Tasks, html.EscapeString(r.Split), html.EscapeString(r.Corpus))
	b.WriteString("</p></section>\n<section><h2>Success curves</h2><div id=\"curves\">")
	b.Write(svg)
	b.WriteString("</div></section>\n<section id=\"viewer\"><h2>Tree viewer</h2><div id=\"viewer-head\"></div>\n<div class=\"controls\"><label>step <input type=\"range\" id=\"step\" min=\"0\" max=\"0\" value=\"0\"></label> <span id=\"step-label\"></span></div>\n<div class=\"panes\"><div id=\"tree\"></div><div id=\"frontier\"><h3>Frontier before the next expansion</h3><ol id=\"frontier-list\"></ol></div></div>\n<div id=\"details\"><h3 id=\"node-title\">Select a node</h3><div id=\"node-edit\"></div><h4>Diff against the parent</h4><pre id=\"node-diff\"></pre><h4>Tests</h4><table id=\"node-tests\"></table><h4>Diagnosis</h4><pre id=\"node-diagnosis\"></pre><h4>Feedback</h4><pre id=\"node-feedback\"></pre></div></section>\n")
	b.WriteString("<script type=\"application/json\" id=\"data\">")
	b.Write(data)
	b.WriteString("</script>\n<script>")
	b.WriteString(viewerJS)
	b.WriteString("</script>\n</body></html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

const css = `body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}
th:first-child,td:first-child{text-align:left}
#js-error{background:#fdd;border:1px solid #c00;padding:.5em}
.panes{display:flex;gap:1em;align-items:flex-start}#tree{flex:3;overflow:auto;border:1px solid #ddd}
#frontier{flex:2;max-height:520px;overflow:auto;font-size:12px}#frontier svg.dist{vertical-align:middle;margin-right:6px}#frontier li.chosen{font-weight:bold;color:#0a5}
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap;max-height:300px;overflow:auto;font-size:12px}
.node{cursor:pointer}.node text{font-size:10px;text-anchor:middle;dominant-baseline:central}
.note{font-size:12px;color:#555}.pass{color:#0a5}.fail{color:#c00}`

const viewerJS = `(function(){
'use strict';
var R=JSON.parse(document.getElementById('data').textContent);
var NS='http://www.w3.org/2000/svg';
function el(tag,attrs,parent,text){var e=document.createElement(tag);for(var k in attrs)e.setAttribute(k,attrs[k]);if(text!==undefined)e.textContent=text;if(parent)parent.appendChild(e);return e;}
function sv(tag,attrs,parent){var e=document.createElementNS(NS,tag);for(var k in attrs)e.setAttribute(k,attrs[k]);if(parent)parent.appendChild(e);return e;}
function fmt(x,p){return (x===undefined||x===null)?'':x.toFixed(p);}
// Results table.
var t=document.getElementById('results');var mb=String(Math.max.apply(null,R.budgets));
var hr=el('tr',{},t);['policy','E[T]','tokens'].concat(R.budgets.map(function(b){return 'S('+b+')';})).concat(['C('+mb+')','AUSC('+mb+')']).forEach(function(h){el('th',{},hr,h);});
R.policies.forEach(function(p){var s=p.summary;var tr=el('tr',{},t);el('td',{},tr,p.name);
el('td',{},tr,fmt(s.ET,2)+' ± '+fmt(s.ET_se,2));el('td',{},tr,fmt(s.tokens,0)+' ± '+fmt(s.tokens_se,0));
R.budgets.forEach(function(b){el('td',{},tr,fmt(s.S[b],3)+' ± '+fmt(s.S_se[b],3));});
el('td',{},tr,fmt(s.C[mb],2)+' ± '+fmt(s.C_se[mb],2));el('td',{},tr,fmt(s.AUSC[mb],3)+' ± '+fmt(s.AUSC_se[mb],3));});
var V=R.viewer;
if(!V){document.getElementById('viewer').style.display='none';document.body.setAttribute('data-render','ok');return;}
document.getElementById('viewer-head').textContent='tree '+V.tree_id+' (task '+V.task_id+'), policy '+V.policy+(V.ranked?'':' (no per-edge priority: chosen edge first)')+(V.solved?', solved':', not solved');
// Layout: depth down, leaves left to right in DFS order.
var byId={},kids={};V.nodes.forEach(function(n){byId[n.id]=n;kids[n.id]=[];});
V.nodes.forEach(function(n){if(n.parent>=0&&kids[n.parent])kids[n.parent].push(n.id);});
var x=0,pos={};function place(id){var c=kids[id];if(!c.length){pos[id]=x++;return pos[id];}var s=0;c.forEach(function(k){s+=place(k);});pos[id]=s/c.length;return pos[id];}
place(0);
var dx=44,dy=70,rad=14,W=Math.max(1,x)*dx+40,H=(Math.max.apply(null,V.nodes.map(function(n){return n.depth;}))+1)*dy+40;
var svg=sv('svg',{width:W,height:H,viewBox:'0 0 '+W+' '+H},document.getElementById('tree'));
function cx(id){return 20+dx/2+pos[id]*dx;}function cy(id){return 30+byId[id].depth*dy;}
var edges={},groups={};
V.nodes.forEach(function(n){if(n.parent>=0&&byId[n.parent])edges[n.id]=sv('line',{x1:cx(n.parent),y1:cy(n.parent),x2:cx(n.id),y2:cy(n.id),stroke:'#999'},svg);});
var C=2*Math.PI*rad;
V.nodes.forEach(function(n){var g=sv('g',{'class':'node'},svg);groups[n.id]=g;
sv('circle',{cx:cx(n.id),cy:cy(n.id),r:rad,fill:n.solved?'#dfd':'#fff',stroke:'#ddd','stroke-width':4},g);
var col=n.solved?'#0a5':(n.status==='load_error'||n.revise_failed?'#c00':'#f90');
sv('circle',{cx:cx(n.id),cy:cy(n.id),r:rad,fill:'none',stroke:col,'stroke-width':4,'stroke-dasharray':(n.pass_rate*C)+' '+C,transform:'rotate(-90 '+cx(n.id)+' '+cy(n.id)+')'},g);
var tx=sv('text',{x:cx(n.id),y:cy(n.id)},g);tx.textContent=n.step===0?'R':String(n.step);
var ti=sv('title',{},g);ti.textContent='node '+n.id+', pass rate '+fmt(n.pass_rate,2)+', step '+n.step;
g.addEventListener('click',function(){show(n.id);});});
function show(id){var n=byId[id];
document.getElementById('node-title').textContent='node '+n.id+' — depth '+n.depth+', pass rate '+fmt(n.pass_rate,2)+', status '+n.status+(n.solved?' (fix)':'');
document.getElementById('node-edit').textContent=n.edit?('edit: '+n.edit):'root program';
document.getElementById('node-diff').textContent=n.diff||'(no change)';
document.getElementById('node-diagnosis').textContent=n.diagnosis||'';
document.getElementById('node-feedback').textContent=n.feedback||'';
var tt=document.getElementById('node-tests');tt.textContent='';var h=el('tr',{},tt);el('th',{},h,'test');el('th',{},h,'result');el('th',{},h,'message');
(n.tests||[]).forEach(function(x){var r=el('tr',{},tt);el('td',{},r,x.name);el('td',{'class':x.passed?'pass':'fail'},r,x.passed?'passed':'failed');el('td',{},r,x.message||'');});}
var slider=document.getElementById('step');slider.max=String(V.steps.length);slider.value=String(Math.max(0,V.steps.length-1));
function setStep(s){V.nodes.forEach(function(n){var vis=n.step<=s;groups[n.id].style.opacity=vis?1:0.12;if(edges[n.id])edges[n.id].style.opacity=vis?1:0.12;});
document.getElementById('step-label').textContent=s+' of '+V.steps.length+' expansions';
var ol=document.getElementById('frontier-list');ol.textContent='';
if(s<V.steps.length){V.steps[s].frontier.forEach(function(c){var li=el('li',{'class':c.chosen?'chosen':''},ol);
if(c.dist){var bw=9,bh=26,g=sv('svg',{width:c.dist.length*(bw+2)+2,height:bh+12,'class':'dist'},li);
c.dist.forEach(function(p,k){var h=Math.max(1,p*bh);sv('rect',{x:1+k*(bw+2),y:bh-h,width:bw,height:h,fill:k<c.dist.length-1?'#37a':'#bbb'},g);
var tl=sv('text',{x:1+k*(bw+2)+bw/2,y:bh+10,'font-size':'8','text-anchor':'middle'},g);tl.textContent=k<c.dist.length-1?String(k+1):'>';
var ti=sv('title',{},g);ti.textContent='P(t = 1..'+(c.dist.length-1)+', > '+(c.dist.length-1)+') = '+c.dist.map(function(x){return fmt(x,3);}).join(', ');});}
el('span',{},li,(c.priority!==undefined?(c.dist?'s(e) = ':'')+fmt(c.priority,4)+' · ':'')+'edge '+c.edge+' of node '+c.parent+': '+c.edit);});}
else{el('li',{},ol,'search ended');}}
slider.addEventListener('input',function(){setStep(parseInt(slider.value,10));});
setStep(parseInt(slider.value,10));show(V.steps.length?V.steps[V.steps.length-1].child:0);
document.body.setAttribute('data-render','ok');
})();`
