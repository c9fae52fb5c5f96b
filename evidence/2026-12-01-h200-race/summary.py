import re,sys
for f in sys.argv[1:]:
    rows=[]
    for line in open(f):
        p=line.split()
        if len(p)==16 and p[0] in ('1','4') and p[1].isdigit():
            rows.append(p)
    samples=sum(int(p[14].rstrip('r')) for p in rows)
    raced=sum(p[14].endswith('r') for p in rows)
    ties=[(p[0],p[1]) for p in rows if p[10].endswith('*') or p[10]=='1.00']
    wall=re.search(r'wall: (\d+) ms',open(f).read()).group(1)
    print(f, 'rows',len(rows),'samples',samples,'raced',raced,'wall_ms',wall,'ties(of best 1.00 or *)',len(ties), ties[:12])
