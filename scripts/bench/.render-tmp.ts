import * as fs from 'fs';
import { renderReport, BenchResults } from './report';
const results = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as BenchResults;
const { markdown, charts } = renderReport(results);
fs.writeFileSync(process.argv[3], markdown);
for (const c of charts) fs.writeFileSync(`/tmp/${c.file}`, c.svg);
console.log(charts.map((c) => c.file).join(' '));
