package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The everyday corpus: facts an assistant would keep about the people in a
// user's life — family, travel, health, hobbies, food, work — in the words
// of everyday speech, not a developer's, so that the recall benchmark says
// something outside the vocabulary the synonym list was written for.
//
// Every template is one topic (a birthday, an allergy, a medicine, a
// favourite restaurant…) and every person has a fact of most topics, so a
// question competes with the same topic's facts about other people and
// with the same person's other facts. Each fact has one question, asked
// the way a person would ask it: it names the person and says the rest in
// its own words, not the fact's ("is there anything Ana can't eat without
// getting sick?" for "Ana is allergic to peanuts"). The questions were
// written with the templates, before any ranking was measured on them, and
// none was changed to suit a ranking. A question is "paraphrased" when,
// but for the person's name, it shares no content word with its fact.
//
// Like the recall corpus, it is nested (a smaller store's facts are the
// first of a larger one's) and deterministic.

// everydayTemplate is one topic. Placeholders: {N} the person's first
// name, {n} lower-cased, {R} their relation to the user, {C} a city, {Y} a
// year, {M} a month, {D} a date, {K} a number, {X} the topic's own pick
// (one of its choices).
type everydayTemplate struct {
	name, description, body, question string
	choices                           []string
}

var everydayTemplates = []everydayTemplate{
	// Family.
	{"{n}-birthday", "{N}'s birthday is on {D}", "My {R} {N} was born on {D}. {N} prefers a phone call to presents.",
		"what day does {N} get a year older?", nil},
	{"{n}-children", "{N} has two kids, {X} and Sam", "{N}'s children are {X}, who is seven, and Sam, who just started school.",
		"what are the names of {N}'s little ones?", []string{"Mia", "Leo", "Zoe", "Noah", "Ella", "Finn", "Ava", "Omar"}},
	{"{n}-married", "{N} got married on {D}", "{N} and {X} had their wedding in {C} on {D}; we were all invited.",
		"when is {N}'s anniversary?", []string{"Chris", "Alex", "Jordan", "Robin", "Sasha", "Kim", "Jamie", "Morgan"}},
	{"{n}-lives-in", "{N} lives in {C}", "{N} moved to {C} in {Y} and rents a flat near the station.",
		"where is {N}'s home these days?", nil},
	{"{n}-reach-by-text", "{N} prefers messages to calls", "{N} rarely picks up the phone; send a WhatsApp message instead and expect an answer in the evening.",
		"what's the best way to get hold of {N}?", nil},
	{"{n}-pet", "{N} has a dog called {X}", "{N}'s dog {X} is a rescue greyhound, very shy with strangers.",
		"does {N} keep any animals?", []string{"Biscuit", "Pepper", "Luna", "Max", "Rocky", "Daisy", "Bruno", "Olive"}},
	{"{n}-gift-idea", "{N} would love a {X}", "Gift idea for {N}: a {X}. They mentioned it in {M}.",
		"what should I buy {N} for Christmas?", []string{"pasta maker", "silk scarf", "record player", "pair of binoculars",
			"leather wallet", "bread machine", "yoga mat", "kindle"}},
	// Travel.
	{"{n}-trip-{x}", "Trip to {X} with {N} in {M}", "{N} and I booked flights to {X} for {M}; the hotel is near the old town.",
		"when are {N} and I going on holiday, and where?", []string{"Lisbon", "Kyoto", "Marrakech", "Reykjavik", "Prague",
			"Havana", "Athens", "Oslo"}},
	{"{n}-passport", "{N}'s passport expires in {M}", "{N}'s passport runs out in {M}; renew it at least three months before any trip abroad.",
		"until when is {N}'s travel document valid?", nil},
	{"{n}-fear-of-flying", "{N} is afraid of flying", "{N} gets panic attacks on planes, so we take the train for trips under eight hours.",
		"why does {N} avoid airplanes?", nil},
	{"{n}-frequent-flyer", "{N}'s frequent flyer number is {K}", "{N} collects miles with {X}; the membership number is {K}.",
		"what's {N}'s airline loyalty account?", []string{"Lufthansa", "KLM", "Iberia", "Emirates", "Delta", "Qantas", "Finnair", "TAP"}},
	{"{n}-beach-holidays", "{N} loves beach holidays in {X}", "{N} goes back to {X} every summer for the sea and the grilled sardines.",
		"where does {N} like to vacation?", []string{"Portugal", "Greece", "Croatia", "Thailand", "Mexico", "Sardinia", "Vietnam", "Malta"}},
	{"{n}-no-licence", "{N} doesn't drive", "{N} never got a driving licence; pick them up from the station when they visit.",
		"can {N} come over by car on their own?", nil},
	// Health.
	{"{n}-allergy", "{N} is allergic to {X}", "{N} has a severe {X} allergy and carries an EpiPen. Check the labels when cooking for them.",
		"is there anything {N} can't eat without getting sick?", []string{"peanuts", "shellfish", "sesame", "walnuts", "eggs", "soy", "mustard", "celery"}},
	{"{n}-medication", "{N} takes {X} every morning", "{N} takes {X} daily for blood pressure and must not skip a dose.",
		"what pills is {N} on?", []string{"ramipril", "amlodipine", "lisinopril", "losartan", "bisoprolol", "atenolol", "valsartan", "enalapril"}},
	{"{n}-doctor", "{N}'s GP is Dr {X}", "{N} sees Dr {X} at the {C} health centre; appointments are booked online.",
		"who is {N}'s physician?", []string{"Patel", "Okoye", "Schmidt", "Laurent", "Yamada", "Rossi", "Walsh", "Nguyen"}},
	{"{n}-knee-injury", "{N} hurt their knee skiing", "{N} tore a ligament in the left knee skiing in {Y} and still can't run.",
		"why can't {N} go jogging?", nil},
	{"{n}-vegetarian", "{N} is vegetarian", "{N} has not eaten meat since {Y}; fish is out too, eggs and cheese are fine.",
		"what should I cook when {N} comes for dinner?", nil},
	{"{n}-insomnia", "{N} has trouble sleeping", "{N} suffers from insomnia and avoids coffee after noon.",
		"why is {N} always so tired?", nil},
	{"{n}-dentist", "{N} has a dentist appointment on {D}", "{N}'s next check-up at the dentist is on {D} at half past nine.",
		"when are {N}'s teeth getting looked at?", nil},
	{"{n}-eyesight", "{N} is short-sighted", "{N} wears contact lenses and needs glasses to drive at night.",
		"does {N} have bad vision?", nil},
	// Hobbies.
	{"{n}-plays-{x}", "{N} plays the {X}", "{N} has played the {X} since childhood and performs with a local band.",
		"what instrument does {N} make music with?", []string{"cello", "trumpet", "piano", "violin", "drums", "saxophone", "banjo", "flute"}},
	{"{n}-football-fan", "{N} supports {X}", "{N} is a lifelong {X} fan and watches every match.",
		"which club does {N} cheer for?", []string{"Arsenal", "Benfica", "Celtic", "Napoli", "Ajax", "Porto", "Everton", "Lazio"}},
	{"{n}-crime-novels", "{N} reads crime novels", "{N} reads a detective story a week, mostly Scandinavian authors.",
		"what kind of books would {N} enjoy?", nil},
	{"{n}-marathon", "{N} is training for the {C} marathon", "{N} runs forty kilometres a week to prepare for the {C} marathon in {M}.",
		"what race is {N} getting ready for?", nil},
	{"{n}-gardening", "{N} grows tomatoes on the balcony", "{N}'s hobby is gardening: tomatoes, basil and chillies in pots.",
		"what does {N} do in their spare time?", nil},
	{"{n}-film-camera", "{N} shoots film with a {X}", "{N} is into photography, develops their own film and uses a {X}.",
		"what gear does {N} take pictures with?", []string{"Leica M6", "Pentax K1000", "Nikon FM2", "Canon AE-1", "Olympus OM-1", "Minolta X-700", "Rolleiflex", "Hasselblad"}},
	{"{n}-chess", "{N} plays chess online every evening", "{N} has a rating of {K} on lichess and likes blitz.",
		"how good is {N} at board games?", nil},
	{"{n}-learning-{x}", "{N} is learning {X}", "{N} takes {X} lessons twice a week before moving abroad.",
		"which foreign tongue is {N} studying?", []string{"Spanish", "Japanese", "Italian", "Korean", "Portuguese", "German", "Arabic", "Dutch"}},
	// Food.
	{"{n}-favourite-restaurant", "{N}'s favourite restaurant is {X}", "{N} always picks {X}, the little Georgian place on Mill Street.",
		"where should I take {N} out to eat?", []string{"Salt & Vine", "The Copper Pot", "Khinkali House", "Tbilisi Corner",
			"Mama Nino", "The Green Door", "Supra", "Old Vine"}},
	{"{n}-coffee-order", "{N} drinks oat flat whites", "{N} orders an oat milk flat white, no sugar.",
		"how does {N} take their coffee?", nil},
	{"{n}-hates-coriander", "{N} hates coriander", "{N} can't stand coriander; it tastes like soap to them.",
		"which herb does {N} refuse to eat?", nil},
	{"{n}-signature-dish", "{N} makes the best {X}", "{N}'s signature dish is {X}, from a family recipe.",
		"what does {N} like to cook for guests?", []string{"lasagne", "paella", "moussaka", "biryani", "goulash", "risotto", "tagine", "pierogi"}},
	{"{n}-sober", "{N} doesn't drink alcohol", "{N} has been sober since {Y}; offer sparkling water or juice.",
		"should I bring {N} a bottle of wine?", nil},
	// Work.
	{"{n}-job", "{N} works as a {X}", "{N} is a {X} at the {C} hospital.",
		"what does {N} do for a living?", []string{"nurse", "radiographer", "pharmacist", "midwife", "paramedic", "surgeon", "physiotherapist", "porter"}},
	{"{n}-new-employer", "{N} started at {X} in {M}", "{N} changed jobs and joined {X} in {M}.",
		"where is {N} employed now?", []string{"Siemens", "Unilever", "IKEA", "Deloitte", "Spotify", "Nestle", "Philips", "Decathlon"}},
	{"{n}-night-shifts", "{N} works night shifts", "{N} works nights Monday to Thursday; don't call before 2 pm.",
		"when is a good time to ring {N}?", nil},
	{"{n}-retires", "{N} retires in {Y}", "{N} plans to stop working in {Y} and move to the coast.",
		"when will {N} leave the workforce for good?", nil},
	{"{n}-cycles-to-work", "{N} cycles to work", "{N} rides a bike to the office every day, twelve kilometres each way.",
		"how does {N} get to their job?", nil},
}

// everydayRelations are who the people are to the user.
var everydayRelations = []string{"sister", "brother", "mum", "dad", "aunt", "uncle", "cousin", "niece", "nephew", "daughter",
	"son", "grandma", "grandpa", "friend", "neighbour", "colleague", "boss", "flatmate", "godmother", "stepbrother"}

// everydayNames are the people's first names, all different, so that a
// question that names one is about one person.
var everydayNames = strings.Fields(`
Ana Bea Carla Dora Eva Fatima Gina Hela Iris Jana Kira Lea Mara Nadia Olga Paula Rosa Sara Tara Uma Vera Wanda Xenia Yara Zora
Aaron Boris Caleb Dario Emil Felix Goran Hugo Ivan Jonas Karl Luca Marco Nils Oskar Pablo Quentin Rafael Stefan Tobias Umar Viktor
Walter Xavier Yosef Zeno Adele Bianca Celine Delia Elif Flora Greta Helga Ines Josie Katya Lena Magda Nina Odile Petra Rhea Selma
Thea Ursula Valya Wilma Yvonne Zelda Anton Bruno Cyril Dmitri Edgar Fabian Gustav Henrik Igor Jakob Kasimir Lorenz Milan Nico
Otto Pavel Rolf Simon Theo Ulrich Vasco Wim Yannick Zoltan Agnes Beatrix Cora Dagny Edith Frida Gemma Hilde Ida Judit Klara Liesel
Mona Nora Orla Pia Ruth Sigrid Tilda Ulla Vesna Wenke Ylva Zofia Alvaro Bastian Conrad Dimitri Elias Florian Gideon Hamid Ismail
Joaquin Kilian Leander Mattias Nestor Orhan Piet Ruben Severin Thorsten Urs Valentin Wendel Yuri Zacharias Amara Bella Chiara
Daria Esme Fiona Gabriela Hanna Ilse Jorunn Kaja Lotte Maren Nell Oona Priya Ronja Svea Tove Una Vida Wren Yasmin Zainab
Ahmed Bjorn Cedric Dev Ezra Farid Gunnar Hakon Ilias Jarek Kemal Lukas Mads Nabil Ole Per Raj Soren Tariq Uwe Vidar Wolf Youssef
Zubair Alma Brit Cleo Dilys Effie Freya Gwen Hedda Isla Juno Kaia Liv Maud Nika Ottilie Pernille Rut Saga Tindra Unni Veslemoy
Astrid Birgit Carmen Dolores Elena Frances Gloria Harriet Imogen Jasmine Kerstin Lucia Marisol Noemi Ophelia Pilar Rocio Soledad
Teresa Ulrika Valeria Winifred Ximena Yolanda Zuzana Ambrose Benedikt Casimir Desmond Erasmus Fergus Godfrey Horatio
Ignatius Jasper Leopold Mortimer Percival Reginald Sebastian Thaddeus Augustin Barnaby Clement Dorian Evander
`)

// Fillers of the other placeholders.
var (
	everydayCities = []string{"Leeds", "Bristol", "Porto", "Lyon", "Ghent", "Bergen", "Graz", "Turin", "Cork", "Malmo",
		"Utrecht", "Bilbao", "Kraków", "Basel", "Aarhus", "Brno"}
)

// everydayQuestionFacts is how many facts of each store are asked about;
// a var so BenchmarkRecallEverydayQuestions can ask about more.
var everydayQuestionFacts = 200

// newEverydayCorpus returns the first n facts of the everyday corpus and
// a question about each of its first everydayQuestionFacts.
func newEverydayCorpus(n int) recallCorpus {
	type pair struct{ template, person int }
	var pairs []pair
	for t := range everydayTemplates {
		for p := range everydayNames {
			pairs = append(pairs, pair{t, p})
		}
	}
	rng := rand.New(rand.NewPCG(29, 2026))
	rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	if n > len(pairs) {
		panic(fmt.Sprintf("the everyday corpus has %d facts at most", len(pairs)))
	}
	var c recallCorpus
	for i, p := range pairs[:n] {
		r := rand.New(rand.NewPCG(uint64(p.template)+1000, uint64(p.person)))
		t := everydayTemplates[p.template]
		name := everydayNames[p.person]
		x := ""
		if len(t.choices) > 0 {
			x = t.choices[r.IntN(len(t.choices))]
		}
		month := recallMonths[r.IntN(12)] + " " + fmt.Sprint(2025+r.IntN(4))
		repl := strings.NewReplacer("{N}", name, "{n}", strings.ToLower(name),
			"{R}", everydayRelations[p.person%len(everydayRelations)],
			"{C}", everydayCities[r.IntN(len(everydayCities))], "{Y}", fmt.Sprint(1995+r.IntN(30)), "{M}", month,
			"{D}", fmt.Sprintf("%d %s", 1+r.IntN(28), recallMonths[r.IntN(12)]), "{K}", fmt.Sprint(1000+r.IntN(9000)),
			"{X}", x, "{x}", slugWord(x))
		f := recallFact{
			fact: fact{typ: "user", name: repl.Replace(t.name), description: repl.Replace(t.description),
				body: repl.Replace(t.body)},
			updated: fmt.Sprintf("%d-%02d-%02d", 2024+r.IntN(3), 1+r.IntN(12), 1+r.IntN(28)),
		}
		c.facts = append(c.facts, f)
		if i >= everydayQuestionFacts {
			continue
		}
		q := repl.Replace(t.question)
		shared := sharedWords(q, f.name+" "+f.description+" "+f.body)
		para := len(shared) == 0 || len(shared) == 1 && shared[0] == strings.ToLower(name)
		c.questions = append(c.questions, recallQuestion{words: q, gold: f.file(), paraphrased: para})
	}
	return c
}

// slugWord is x as a part of a file name: lower-cased, spaces as hyphens,
// nothing but letters, digits and hyphens.
func slugWord(x string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(x) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-':
			b.WriteByte('-')
		}
	}
	return b.String()
}
